// The MCP stack: HTTP API → mcp-server, its audit log group, alarms and the deployment dashboard;
// with OAuth on, the authorization server (Cognito, or an existing one) and the front door
// (CloudFront + Lambda@Edge, unless the configuration relies on the clients' well-known fallback).
import { Annotations, ArnFormat, CfnOutput, Duration, Fn, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import * as apigw from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import * as acm from 'aws-cdk-lib/aws-certificatemanager';
import type * as cloudfront from 'aws-cdk-lib/aws-cloudfront';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as cwActions from 'aws-cdk-lib/aws-cloudwatch-actions';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as kms from 'aws-cdk-lib/aws-kms';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as route53 from 'aws-cdk-lib/aws-route53';
import * as route53Targets from 'aws-cdk-lib/aws-route53-targets';
import * as sns from 'aws-cdk-lib/aws-sns';
import type { Construct } from 'constructs';
import type { ConnectorCatalog } from './catalogs.ts';
import { type DeploymentConfig, connectorEnvPrefix } from './config.ts';
import { toolFailuresFilter } from './connector-rows.ts';
import { buildDashboard } from './dashboard.ts';
import type { EdgeStack } from './edge-stack.ts';
import { ORIGIN_VERIFY, cloudFrontFrontDoor, edgeFunctionRole } from './front-door.ts';
import { allowLedgerWrites, allowLimitCounters, allowSecretRead } from './grants.ts';
import { latencyAlarms } from './latency.ts';
import { OUTCOME_UNKNOWN_METRIC, ledgerAlarms, ledgerTable, outcomeUnknownFilter } from './ledger.ts';
import { limitAlarms, limitsTable } from './limits.ts';
import { BINARIES, alarmName, auditLogGroupName, functionName, opsTopicName } from './names.ts';
import { OAUTH_ENV, oauthSetup } from './oauth.ts';
import type { InsightsQuery } from './queries.ts';
import type { QuotaAlarmPlan } from './quota-alarms.ts';
import { rateLimitAlarms, upstreamRateLimitedFilter } from './rate-limits.ts';
import { type LambdaCode, allowLogging, functionRole, rustLambda } from './rust-function.ts';
import { ADOT_OTLP_ENDPOINT, addTracing } from './tracing.ts';
import { VAULT_ENV, addConnectRoutes, allowVault, vaultKey, vaultTable } from './vault.ts';
import { AS_ENV, IDP_CALLBACK_PATH, addIssuerRoutes, allowIssuer, issuerEnvironment, type IssuerKeys, issuerKeys, issuerTable } from './authorization-server.ts';
import { INBOUND_ENV, INBOUND_REFUSED_METRIC, addInboundRoutes, allowInbound, inboundAlarms, inboundKey, inboundRefusedFilter, inboundTable } from './inbound.ts';

/** Names read by functions/mcp-server/src/config/mod.rs (its `pub const`s), one to one. */
export const MCP_ENV = {
  secretId: 'MCP_SECRET_ID',
  secretTtlSecs: 'MCP_SECRET_TTL_SECS',
  allowedHosts: 'MCP_ALLOWED_HOSTS',
  allowedOrigins: 'MCP_ALLOWED_ORIGINS',
  maxBodyBytes: 'MCP_MAX_BODY_BYTES',
  maxResultBytes: 'MCP_MAX_RESULT_BYTES',
  emfNamespace: 'MCP_EMF_NAMESPACE',
  healthTimeoutMs: 'MCP_HEALTH_TIMEOUT_MS',
  healthIntervalS: 'MCP_HEALTH_INTERVAL_S',
  callDeadlineMs: 'MCP_CALL_DEADLINE_MS',
  jobWaitMs: 'MCP_JOB_WAIT_MS',
  limitPerIpPerMinute: 'MCP_LIMIT_PER_IP_PER_MINUTE',
  limitIpv6Prefix: 'MCP_LIMIT_IPV6_PREFIX',
  limitPerCallerPerMinute: 'MCP_LIMIT_PER_CALLER_PER_MINUTE',
  limitDailyCalls: 'MCP_LIMIT_DAILY_CALLS',
  limitsTable: 'MCP_LIMITS_TABLE',
  limitsTimeoutMs: 'MCP_LIMITS_TIMEOUT_MS',
  ledgerTable: 'MCP_LEDGER_TABLE',
  tokenConfirmsCritical: 'MCP_TOKEN_CONFIRMS_CRITICAL',
  trustedProxies: 'MCP_TRUSTED_PROXIES',
  logFormat: 'MCP_LOG_FORMAT',
  otlpEndpoint: 'MCP_OTLP_ENDPOINT',
  traceSampleRatio: 'MCP_TRACE_SAMPLE_RATIO',
  profiles: 'MCP_PROFILES',
  keyProfiles: 'MCP_KEY_PROFILES',
  defaultProfile: 'MCP_DEFAULT_PROFILE',
  exposeRawSuffix: '_EXPOSE_RAW',
  baseUrlSuffix: '_BASE_URL',
  ...OAUTH_ENV,
  ...AS_ENV,
} as const;

/** The protected resource metadata (RFC 9728) mcp-server serves with OAuth on, and its path-suffixed forms. */
export const WELL_KNOWN_PATH = '/.well-known/oauth-protected-resource';

/**
 * The tool-call deadline for a function timeout: 8 s, or the timeout minus 2 s when that is less
 * (at least 1 s). The timeout is longer for the jobs a call waits for (`jobWaitMs`); an ordinary
 * call keeps its 8 s.
 */
export function callDeadlineMs(timeoutSeconds: number): number {
  return Math.max(1000, Math.min(8000, timeoutSeconds * 1000 - 2000));
}

/**
 * How long a call waits for the upstream job it started when the client holds no MCP tasks: 25 s,
 * or the timeout minus 4 s when that is less (the job's last read and the answer fit after it).
 */
export function jobWaitMs(timeoutSeconds: number): number {
  return Math.max(0, Math.min(25000, timeoutSeconds * 1000 - 4000));
}

/** The audit `event` value and field (shared/audit) the auth alarm counts. */
export const AUDIT_EVENT_FIELD = 'event';
export const AUTH_DENIED_EVENT = 'auth_denied';

/** Metric-filter metrics (in the deployment's metrics namespace). */
export const FILTER_METRICS = {
  authDenied: 'AuthDenied',
  coldStarts: 'ColdStarts',
  initDurationMs: 'InitDurationMs',
  outcomeUnknown: OUTCOME_UNKNOWN_METRIC,
  inboundRefused: INBOUND_REFUSED_METRIC,
} as const;

export const ALARM_PERIOD = Duration.minutes(5);

export interface McpStackProps extends StackProps {
  readonly config: DeploymentConfig;
  readonly catalogs: readonly ConnectorCatalog[];
  readonly queries: readonly InsightsQuery[];
  /** The quota alarms (ops stack): the dashboard shows the same connectors and thresholds. */
  readonly quotaAlarmPlan: QuotaAlarmPlan;
  readonly code: LambdaCode;
  /** The us-east-1 stack of the Lambda@Edge function (OAuth behind CloudFront, stack not in us-east-1). */
  readonly edge?: EdgeStack;
}

export class McpStack extends Stack {
  readonly fn: lambda.Function;
  readonly api: apigw.HttpApi;
  readonly auditLogGroup: logs.LogGroup;
  /** The shared limit counters; none when `mcpServer.limits.table` is off. */
  readonly limitsTable: dynamodb.Table | undefined;
  /** The idempotency ledger (exactly-once writes); always there: without it writes could run twice. */
  readonly ledgerTable: dynamodb.Table;
  /** What clients connect to; with OAuth on, the resource URL (MCP_RESOURCE_URL). */
  readonly mcpUrl: string;
  /** CloudFront in front of the API (OAuth with front door `cloudfront`). */
  readonly distribution: cloudfront.Distribution | undefined;
  /** The vault table and its KMS key (`perUserConnectors`); none without. */
  readonly vault: { readonly table: dynamodb.Table; readonly key: kms.Key } | undefined;
  /** The inbound events' table and KMS key (a catalog declares `inbound`); none without. */
  readonly inbound: { readonly table: dynamodb.Table; readonly key: kms.Key } | undefined;
  /** The authorization server's table and signing key (`oauth.authorizationServer`); none without. */
  readonly issuer: { readonly table: dynamodb.Table; readonly keys: IssuerKeys } | undefined;

  constructor(scope: Construct, id: string, props: McpStackProps) {
    super(scope, id, props);
    const { config, catalogs } = props;
    const { stage } = config;

    // The audit log: mcp-server's stdout. Kept when the stack goes (it is the audit trail).
    this.auditLogGroup = new logs.LogGroup(this, 'AuditLog', {
      logGroupName: auditLogGroupName(stage),
      retention: config.logRetentionDays as logs.RetentionDays,
      removalPolicy: RemovalPolicy.RETAIN,
    });

    this.api = new apigw.HttpApi(this, 'HttpApi', {
      apiName: `hosted-mcp-${stage}`,
      description: `hosted-mcp ${stage}: MCP over Streamable HTTP`,
      createDefaultStage: false,
    });

    const oauth = config.oauth;
    const viaCloudFront = oauth?.frontDoor === 'cloudfront';
    // With CloudFront in front, the custom domain is the distribution's (front-door.ts).
    let domain: apigw.DomainName | undefined;
    if (config.customDomain && !viaCloudFront) {
      const cd = config.customDomain;
      domain = new apigw.DomainName(this, 'CustomDomain', {
        domainName: cd.domainName,
        certificate: acm.Certificate.fromCertificateArn(this, 'Certificate', cd.certificateArn),
      });
      if (cd.hostedZone) {
        const zone = route53.HostedZone.fromHostedZoneAttributes(this, 'Zone', {
          hostedZoneId: cd.hostedZone.id,
          zoneName: cd.hostedZone.name,
        });
        new route53.ARecord(this, 'CustomDomainAlias', {
          zone,
          recordName: cd.domainName,
          target: route53.RecordTarget.fromAlias(
            new route53Targets.ApiGatewayv2DomainProperties(domain.regionalDomainName, domain.regionalHostedZoneId),
          ),
        });
      }
    }

    const stageResource = new apigw.HttpStage(this, 'DefaultStage', {
      httpApi: this.api,
      stageName: '$default',
      autoDeploy: true,
      throttle: { rateLimit: config.throttle.rateLimit, burstLimit: config.throttle.burstLimit },
    });
    if (domain) {
      new apigw.ApiMapping(this, 'CustomDomainMapping', { api: this.api, domainName: domain, stage: stageResource });
    }

    this.limitsTable = limitsTable(this, config);
    this.ledgerTable = ledgerTable(this, config);
    const role = functionRole(this, 'McpServerRole', `mcp-server (${stage}): its log group, the deployment secret, the limits table and the idempotency ledger`);
    allowLogging(role, this.auditLogGroup);
    allowSecretRead(role, config);
    if (this.limitsTable) allowLimitCounters(role, this.limitsTable);
    allowLedgerWrites(role, this.ledgerTable);
    const perUser = config.perUserConnectors;
    this.vault = perUser ? { table: vaultTable(this, stage, perUser), key: vaultKey(this, stage) } : undefined;
    if (this.vault) allowVault(role, this.vault.table, this.vault.key);
    this.inbound = catalogs.some((c) => c.inbound) ? { table: inboundTable(this, stage), key: inboundKey(this, stage) } : undefined;
    if (this.inbound) allowInbound(role, this.inbound.table, this.inbound.key);
    const authorizationServer = config.oauth?.authorizationServer;
    this.issuer = authorizationServer ? { table: issuerTable(this, stage), keys: issuerKeys(this, stage, authorizationServer) } : undefined;
    if (this.issuer) allowIssuer(role, this.issuer.table, this.issuer.keys);

    const apiHost = `${this.api.apiId}.execute-api.${this.region}.${this.urlSuffix}`;

    // The resource URL is fixed before the function exists: from the configuration or the custom
    // domain when given, else the front door's own host. The distribution depends on the API only
    // (its origin is the API's host, not the function), so the function's environment may name
    // the distribution without a dependency cycle.
    const resourceOrigin = oauth?.resourceUrl ? new URL(oauth.resourceUrl).origin
      : config.customDomain ? `https://${config.customDomain.domainName}` : undefined;
    let distribution: cloudfront.Distribution | undefined;
    if (viaCloudFront) {
      distribution = cloudFrontFrontDoor(this, {
        stage,
        secretId: config.secretId,
        api: this.api,
        apiHost,
        ...(config.customDomain ? { customDomain: config.customDomain } : {}),
        ...(resourceOrigin ? { resourceOrigin } : {}),
        edgeRole: props.edge?.role ?? edgeFunctionRole(this, stage),
        ...(props.edge ? { edgeStackId: props.edge.node.id } : {}),
      }).distribution;
      if (config.mcpServer.trustedProxies.length === 0) {
        Annotations.of(this).addWarningV2('hosted-mcp:trusted-proxies',
          'OAuth behind CloudFront without mcpServer.trustedProxies: mcp-server sees CloudFront\'s addresses, so the per-IP limit ' +
          'counts per edge location. Set mcpServer.trustedProxies to CloudFront\'s origin-facing ranges (README, OAuth).');
      }
    }
    this.distribution = distribution;
    const frontHost = distribution ? distribution.distributionDomainName : apiHost;
    const resourceUrl = oauth?.resourceUrl ?? `${resourceOrigin ?? `https://${frontHost}`}/mcp`;
    // Where mcp-server serves /connect/<connector>: the resource URL without its /mcp.
    const connectBase = resourceUrl.slice(0, -'/mcp'.length);
    const perUserConnectors = catalogs.filter((c) => c.oauthUser).map((c) => c.connector);
    if (perUser && perUserConnectors.length === 0) {
      Annotations.of(this).addWarningV2('hosted-mcp:per-user-connectors',
        'perUserConnectors is on, but no catalog declares auth.oauth_user: the vault is created and nobody can connect anything yet.');
    }
    if (!perUser && perUserConnectors.length > 0) {
      Annotations.of(this).addWarningV2('hosted-mcp:per-user-connectors',
        `${perUserConnectors.join(', ')} ${perUserConnectors.length === 1 ? 'declares' : 'declare'} auth.oauth_user, but perUserConnectors is off: no vault, no /connect routes; their tools answer connection_required.`);
    }

    const hosts = [apiHost, ...(config.customDomain ? [config.customDomain.domainName] : []), ...config.allowedHosts];
    const environment: Record<string, string> = {
      [MCP_ENV.secretId]: config.secretId,
      [MCP_ENV.secretTtlSecs]: String(config.mcpServer.secretTtlSeconds),
      [MCP_ENV.allowedHosts]: Fn.join(',', hosts),
      [MCP_ENV.maxBodyBytes]: String(config.mcpServer.maxBodyBytes),
      [MCP_ENV.maxResultBytes]: String(config.mcpServer.maxResultBytes),
      [MCP_ENV.emfNamespace]: config.metricsNamespace,
      [MCP_ENV.healthTimeoutMs]: String(config.mcpServer.healthTimeoutMs),
      // One probe per connector per interval for the deployment (shared in the limits table).
      [MCP_ENV.healthIntervalS]: String(config.mcpServer.healthIntervalSeconds),
      // A tool call ends 2 s before the function does, so it still answers with a status and
      // writes its audit line instead of becoming a gateway timeout.
      [MCP_ENV.callDeadlineMs]: String(callDeadlineMs(config.mcpServer.timeoutSeconds)),
      // A call that started an upstream job waits for it (then answers `pending`) within the
      // function's time, below API Gateway's 30 s.
      [MCP_ENV.jobWaitMs]: String(jobWaitMs(config.mcpServer.timeoutSeconds)),
      [MCP_ENV.limitPerIpPerMinute]: String(config.mcpServer.limits.perIpPerMinute),
      [MCP_ENV.limitIpv6Prefix]: String(config.mcpServer.limits.ipv6Prefix),
      [MCP_ENV.limitPerCallerPerMinute]: String(config.mcpServer.limits.perCallerPerMinute),
      [MCP_ENV.limitDailyCalls]: String(config.mcpServer.limits.dailyCalls),
      // The ledger fails closed: a keyed write is refused while the table cannot be reached.
      [MCP_ENV.ledgerTable]: this.ledgerTable.tableName,
      [MCP_ENV.logFormat]: 'json',
    };
    if (this.limitsTable) {
      environment[MCP_ENV.limitsTable] = this.limitsTable.tableName;
      environment[MCP_ENV.limitsTimeoutMs] = String(config.mcpServer.limits.tableTimeoutMs);
    }
    if (config.allowedOrigins.length > 0) environment[MCP_ENV.allowedOrigins] = config.allowedOrigins.join(',');
    const profiles = Object.entries(config.profiles);
    if (profiles.length > 0) environment[MCP_ENV.profiles] = profiles.map(([name, p]) => `${name}=${p.join(',')}`).join(';');
    const keyProfiles = Object.entries(config.keyProfiles);
    if (keyProfiles.length > 0) environment[MCP_ENV.keyProfiles] = keyProfiles.map(([key, p]) => `${key}=${p}`).join(',');
    if (config.defaultProfile !== undefined) environment[MCP_ENV.defaultProfile] = config.defaultProfile;
    if (config.mcpServer.trustedProxies.length > 0) environment[MCP_ENV.trustedProxies] = config.mcpServer.trustedProxies.join(',');
    if (config.userHeaderKeys.length > 0) environment[MCP_ENV.userHeaderKeys] = config.userHeaderKeys.join(',');
    if (config.tokenConfirmsCritical.length > 0) environment[MCP_ENV.tokenConfirmsCritical] = config.tokenConfirmsCritical.join(',');
    // Behind CloudFront: the header whose value (the secret's `origin_verify`) proves a request
    // came through the distribution; mcp-server refuses requests without it (issue 23, finding 11).
    if (distribution) environment[ORIGIN_VERIFY.env] = ORIGIN_VERIFY.header;
    if (oauth) {
      const connect = perUser ? {
        ...(perUser.connectClientId ? { clientId: perUser.connectClientId } : {}),
        // Each connector's connect flow, and the person's own page of connections.
        callbackUrls: perUserConnectors.length === 0 ? [] : [
          ...perUserConnectors.map((c) => `${connectBase}/connect/${c}/signed-in`),
          `${connectBase}/connections/signed-in`,
        ],
      } : undefined;
      const setup = oauthSetup(this, stage, oauth, resourceUrl, config.logRetentionDays, connect);
      Object.assign(environment, setup.environment);
      const connectClientId = perUser?.connectClientId ?? setup.cognito?.connectClient?.userPoolClientId;
      if (this.vault && connectClientId) environment[VAULT_ENV.connectClientId] = connectClientId;
    }
    if (this.vault) {
      environment[VAULT_ENV.vaultTable] = this.vault.table.tableName;
      environment[VAULT_ENV.vaultKeyId] = this.vault.key.keyArn;
    }
    if (authorizationServer && this.issuer) Object.assign(environment, issuerEnvironment(authorizationServer, this.issuer.table, this.issuer.keys));
    if (this.inbound) {
      environment[INBOUND_ENV.inboundTable] = this.inbound.table.tableName;
      environment[INBOUND_ENV.inboundKeyId] = this.inbound.key.keyArn;
    }
    const tracing = config.mcpServer.tracing;
    if (tracing) {
      // The ADOT collector layer's OTLP/HTTP receiver, in the same execution environment.
      environment[MCP_ENV.otlpEndpoint] = ADOT_OTLP_ENDPOINT;
      environment[MCP_ENV.traceSampleRatio] = String(tracing.sampleRatio);
    }
    for (const c of catalogs) {
      // Raw pass-through tools stay hidden in every hosted deployment, stated rather than defaulted.
      environment[`${connectorEnvPrefix(c.connector)}${MCP_ENV.exposeRawSuffix}`] = 'false';
      const url = config.connectorBaseUrls[c.connector];
      if (url) environment[`${connectorEnvPrefix(c.connector)}${MCP_ENV.baseUrlSuffix}`] = url;
    }

    this.fn = rustLambda(this, 'McpServer', props.code, {
      binaryName: BINARIES.mcpServer,
      functionName: functionName(stage, BINARIES.mcpServer),
      description: `hosted-mcp ${stage}: MCP server`,
      memoryMb: config.mcpServer.memoryMb,
      timeout: Duration.seconds(config.mcpServer.timeoutSeconds),
      environment,
      role,
      logGroup: this.auditLogGroup,
      ...(config.mcpServer.reservedConcurrency !== undefined
        ? { reservedConcurrentExecutions: config.mcpServer.reservedConcurrency }
        : {}),
    });

    if (tracing) addTracing(this, this.fn, role, tracing);

    const integration = new HttpLambdaIntegration('McpServerIntegration', this.fn, {
      payloadFormatVersion: apigw.PayloadFormatVersion.VERSION_2_0,
    });
    this.api.addRoutes({ path: '/mcp', methods: [apigw.HttpMethod.ANY], integration });
    // A profile's tool set: /mcp/<profile> (MCP_PROFILES).
    this.api.addRoutes({ path: '/mcp/{profile}', methods: [apigw.HttpMethod.ANY], integration });
    this.api.addRoutes({ path: '/health', methods: [apigw.HttpMethod.GET], integration });
    // The capability pages of the connectors a caller may use, behind the same authentication as /mcp.
    this.api.addRoutes({ path: '/connectors', methods: [apigw.HttpMethod.GET], integration });
    if (oauth) {
      // Unauthenticated, as mcp-server serves them (GET, and OPTIONS for browsers' preflight).
      const methods = [apigw.HttpMethod.GET, apigw.HttpMethod.OPTIONS];
      this.api.addRoutes({ path: WELL_KNOWN_PATH, methods, integration });
      this.api.addRoutes({ path: `${WELL_KNOWN_PATH}/{proxy+}`, methods, integration });
    }
    // A person connecting their own upstream account; CloudFront, when in front, passes every path.
    if (this.vault) addConnectRoutes(this.api, integration);
    // The authorization server's metadata and /oauth/*: public, as the clients and browsers
    // reach them before they hold a token; CloudFront, when in front, passes every path.
    if (this.issuer) addIssuerRoutes(this.api, integration);
    // Webhooks an upstream pushes: the handshake and the signed bodies.
    if (this.inbound) addInboundRoutes(this.api, integration);

    // Metric filters on the audit log: auth denials (audit events) and cold starts (platform.report
    // records carry initDurationMs only after an init).
    const namespace = config.metricsNamespace;
    const authDenied = new logs.MetricFilter(this, 'AuthDeniedFilter', {
      logGroup: this.auditLogGroup,
      filterPattern: logs.FilterPattern.stringValue(`$.${AUDIT_EVENT_FIELD}`, '=', AUTH_DENIED_EVENT),
      metricNamespace: namespace,
      metricName: FILTER_METRICS.authDenied,
      metricValue: '1',
      defaultValue: 0,
      unit: cloudwatch.Unit.COUNT,
    });
    const coldStartPattern = logs.FilterPattern.all(
      logs.FilterPattern.stringValue('$.type', '=', 'platform.report'),
      logs.FilterPattern.numberValue('$.record.metrics.initDurationMs', '>', 0),
    );
    const coldStarts = new logs.MetricFilter(this, 'ColdStartFilter', {
      logGroup: this.auditLogGroup,
      filterPattern: coldStartPattern,
      metricNamespace: namespace,
      metricName: FILTER_METRICS.coldStarts,
      metricValue: '1',
      unit: cloudwatch.Unit.COUNT,
    });
    const initDuration = new logs.MetricFilter(this, 'InitDurationFilter', {
      logGroup: this.auditLogGroup,
      filterPattern: coldStartPattern,
      metricNamespace: namespace,
      metricName: FILTER_METRICS.initDurationMs,
      metricValue: '$.record.metrics.initDurationMs',
      unit: cloudwatch.Unit.MILLISECONDS,
    });

    // Alarms → the ops topic (created by the ops stack under a fixed name).
    const topic = sns.Topic.fromTopicArn(
      this,
      'OpsTopic',
      this.formatArn({ service: 'sns', resource: opsTopicName(stage), arnFormat: ArnFormat.NO_RESOURCE_NAME }),
    );
    const action = new cwActions.SnsAction(topic);
    const alarm = (id: string, props: cloudwatch.AlarmProps): cloudwatch.Alarm => {
      const a = new cloudwatch.Alarm(this, id, {
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
        ...props,
      });
      a.addAlarmAction(action);
      return a;
    };
    const t = config.alarms;
    alarm('LambdaErrorsAlarm', {
      alarmName: alarmName(stage, 'mcp-server-errors'),
      alarmDescription: 'mcp-server invocations failed (crash, timeout, out of memory). Tool failures are results and do not count here.',
      metric: this.fn.metricErrors({ period: ALARM_PERIOD, statistic: cloudwatch.Stats.SUM }),
      threshold: t.lambdaErrors,
      evaluationPeriods: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
    });
    alarm('LambdaThrottlesAlarm', {
      alarmName: alarmName(stage, 'mcp-server-throttles'),
      alarmDescription: 'mcp-server invocations throttled by Lambda (concurrency limit): clients saw errors.',
      metric: this.fn.metricThrottles({ period: ALARM_PERIOD, statistic: cloudwatch.Stats.SUM }),
      threshold: t.lambdaThrottles,
      evaluationPeriods: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
    });
    alarm('DurationP99Alarm', {
      alarmName: alarmName(stage, 'mcp-server-duration-p99'),
      alarmDescription: `mcp-server p99 duration above ${t.durationP99Ms} ms (timeout ${config.mcpServer.timeoutSeconds} s) in 2 of 3 five-minute periods: an upstream is slow or the function is undersized.`,
      metric: this.fn.metricDuration({ period: ALARM_PERIOD, statistic: cloudwatch.Stats.p(99) }),
      threshold: t.durationP99Ms,
      evaluationPeriods: 3,
      datapointsToAlarm: 2,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
    });
    alarm('Api5xxAlarm', {
      alarmName: alarmName(stage, 'api-5xx'),
      alarmDescription: 'HTTP API answered 5xx (integration failures, Lambda errors or throttles).',
      metric: this.api.metricServerError({ period: ALARM_PERIOD, statistic: cloudwatch.Stats.SUM }),
      threshold: t.api5xx,
      evaluationPeriods: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
    });
    alarm('AuthDeniedAlarm', {
      alarmName: alarmName(stage, 'auth-denied-spike'),
      alarmDescription: `${t.authDenied} or more auth_denied audit events in 5 minutes: a leaked or revoked key in use, or someone guessing keys.`,
      metric: authDenied.metric({ period: ALARM_PERIOD, statistic: cloudwatch.Stats.SUM }),
      threshold: t.authDenied,
      evaluationPeriods: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
    });

    limitAlarms(config, alarm, ALARM_PERIOD);
    ledgerAlarms(config, outcomeUnknownFilter(this, this.auditLogGroup, namespace), alarm, ALARM_PERIOD);
    latencyAlarms(config, catalogs, alarm, ALARM_PERIOD);
    upstreamRateLimitedFilter(this, this.auditLogGroup, namespace);
    toolFailuresFilter(this, this.auditLogGroup, namespace);
    rateLimitAlarms(config, catalogs, alarm, ALARM_PERIOD);
    if (this.inbound) inboundAlarms(config, inboundRefusedFilter(this, this.auditLogGroup, namespace), alarm, ALARM_PERIOD);

    const host = config.customDomain ? config.customDomain.domainName : apiHost;
    this.mcpUrl = oauth ? resourceUrl : `https://${host}/mcp`;

    const dashboard = buildDashboard(this, {
      stage,
      namespace,
      fn: this.fn,
      api: this.api,
      auditLogGroupName: auditLogGroupName(stage),
      catalogs,
      queries: props.queries,
      quotaAlarmPlan: props.quotaAlarmPlan,
      coldStarts: coldStarts.metric({ statistic: cloudwatch.Stats.SUM }),
      initDuration: initDuration.metric({ statistic: cloudwatch.Stats.p(95) }),
      authDenied: authDenied.metric({ statistic: cloudwatch.Stats.SUM }),
      mcpUrl: this.mcpUrl,
      dailyCallsUsedPct: config.alarms.dailyCallsUsedPct,
      toolLatencyP95Ms: config.alarms.toolLatencyP95Ms,
    });

    new CfnOutput(this, 'McpUrl', { value: this.mcpUrl, description: 'The MCP endpoint clients connect to' });
    new CfnOutput(this, 'ApiEndpoint', { value: stageResource.url, description: 'The API Gateway endpoint (execute-api)' });
    new CfnOutput(this, 'AuditLogGroup', { value: this.auditLogGroup.logGroupName });
    new CfnOutput(this, 'DashboardName', { value: dashboard.dashboardName });
    if (this.inbound) {
      new CfnOutput(this, 'InboundTableName', { value: this.inbound.table.tableName });
      new CfnOutput(this, 'InboundKeyArn', { value: this.inbound.key.keyArn });
    }
    if (this.vault) {
      new CfnOutput(this, 'VaultTableName', { value: this.vault.table.tableName });
      new CfnOutput(this, 'VaultKeyArn', { value: this.vault.key.keyArn });
      for (const c of perUserConnectors) {
        new CfnOutput(this, `ConnectRedirectUri${c.replace(/[^A-Za-z0-9]/g, '')}`, {
          value: `${connectBase}/connect/${c}/callback`,
          description: `The redirect URI to register with ${c}'s OAuth client (the upstream's authorization server)`,
        });
      }
    }
    if (this.issuer) {
      new CfnOutput(this, 'IssuerTableName', { value: this.issuer.table.tableName });
      new CfnOutput(this, 'IssuerKeyArn', { value: this.issuer.keys.current.keyArn });
      new CfnOutput(this, 'IdpRedirectUri', {
        value: `${connectBase}${IDP_CALLBACK_PATH}`,
        description: "The redirect URI to register with our client at the company's identity provider (MCP_AS_IDP_CLIENT_ID)",
      });
    }
    if (distribution) {
      new CfnOutput(this, 'DistributionDomainName', { value: distribution.distributionDomainName, description: 'CloudFront in front of the API (the CNAME target of a custom domain without a hosted zone)' });
      new CfnOutput(this, 'DistributionId', { value: distribution.distributionId });
    }
  }
}
