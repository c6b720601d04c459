// The deployment configuration: one typed object per stage, read from a JSON file
// (`cdk … -c config=config/prod.json`) or from the `hostedMcp` context object (cdk.json or
// cdk.context.json). Everything is validated before a construct is created; all problems are
// reported at once, each naming its key, so a bad file fails `cdk synth` with a readable list.
import { existsSync, readFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { Checker, HOST, type Json, describe } from './checker.ts';
import { type OAuthConfig, parseOAuthConfig, requestedFrontDoor } from './oauth-config.ts';
import { INFRA_DIR } from './paths.ts';

export interface ScheduleConfig {
  /** EventBridge Scheduler expression: `cron(…)` (6 fields) or `rate(…)`. */
  readonly expression: string;
  /** IANA time zone the cron fields are read in. */
  readonly timeZone: string;
}

export interface FunctionSizing {
  readonly memoryMb: number;
  readonly timeoutSeconds: number;
}

export interface McpServerConfig extends FunctionSizing {
  /** MCP_SECRET_TTL_SECS */
  readonly secretTtlSeconds: number;
  /** MCP_MAX_BODY_BYTES */
  readonly maxBodyBytes: number;
  /** MCP_MAX_RESULT_BYTES */
  readonly maxResultBytes: number;
  /** MCP_HEALTH_TIMEOUT_MS */
  readonly healthTimeoutMs: number;
  /**
   * MCP_HEALTH_INTERVAL_S: one /health probe per connector per this many seconds for the whole
   * deployment (shared through the limits table). At 60 a monitor polling around the clock costs
   * about 43,200 upstream requests a month: raise it for a connector with a small monthly quota.
   */
  readonly healthIntervalSeconds: number;
  /** MCP_LIMIT_PER_IP_PER_MINUTE, MCP_LIMIT_PER_CALLER_PER_MINUTE, MCP_LIMIT_DAILY_CALLS (0: off). */
  readonly limits: {
    readonly perIpPerMinute: number;
    /** MCP_LIMIT_IPV6_PREFIX: an IPv6 client is counted by this prefix (32–128; IPv4 by its address). */
    readonly ipv6Prefix: number;
    readonly perCallerPerMinute: number;
    readonly dailyCalls: number;
    /** The shared DynamoDB counter table (MCP_LIMITS_TABLE); false: every instance counts in memory. */
    readonly table: boolean;
    /** MCP_LIMITS_TIMEOUT_MS: how long a call waits for the table before counting in memory. */
    readonly tableTimeoutMs: number;
  };
  /** MCP_TRUSTED_PROXIES: proxies whose X-Forwarded-For names the client (CloudFront's ranges). */
  readonly trustedProxies: readonly string[];
  /** Reserved concurrency; unset leaves the function on the account pool. */
  readonly reservedConcurrency?: number;
  /** OpenTelemetry traces to X-Ray through the ADOT collector layer; unset: no traces, no layer. */
  readonly tracing?: TracingConfig;
}

export interface TracingConfig {
  /** MCP_TRACE_SAMPLE_RATIO: the share of new traces kept, 0 to 1 (a client's `traceparent` decides for its own). */
  readonly sampleRatio: number;
  /**
   * The AWS Distro for OpenTelemetry collector layer (arm64) that receives OTLP on
   * localhost:4318 and forwards to X-Ray. Unset: the CDK's `AdotLambdaLayerGenericVersion.LATEST`
   * for the stack's region (`arn:aws:lambda:<region>:901920570463:layer:aws-otel-collector-arm64-ver-…`).
   */
  readonly layerArn?: string;
}

export interface CustomDomainConfig {
  /** e.g. `mcp.example.com`; added to MCP_ALLOWED_HOSTS. */
  readonly domainName: string;
  /**
   * ACM certificate for `domainName`: in the stack's region (API Gateway's regional endpoint), or
   * in us-east-1 when CloudFront serves the domain (`oauth.frontDoor` `cloudfront`).
   */
  readonly certificateArn: string;
  /** When given, an A alias record for `domainName` is created in this zone. */
  readonly hostedZone?: { readonly id: string; readonly name: string };
}

export interface AlarmThresholds {
  /** mcp-server Lambda `Errors` (crashes, timeouts; tool failures are results, not errors) per 5 min. */
  readonly lambdaErrors: number;
  /** mcp-server Lambda `Throttles` per 5 min. */
  readonly lambdaThrottles: number;
  /** mcp-server Lambda `Duration` p99, milliseconds, in 2 of 3 five-minute periods. */
  readonly durationP99Ms: number;
  /** HTTP API `5xx` per 5 min. */
  readonly api5xx: number;
  /** `auth_denied` audit events per 5 min. */
  readonly authDenied: number;
  /** `daily_calls_used_pct` (EMF from mcp-server): share of the daily tool-call cap used, percent. */
  readonly dailyCallsUsedPct: number;
  /** EMF `duration_ms` p95 per connector, milliseconds, in 2 of 3 five-minute periods. */
  readonly toolLatencyP95Ms: number;
  /** Write calls answered `outcome_unknown` (audit `idempotency` `unknown`) per 5 min. */
  readonly outcomeUnknown: number;
  /** Calls an upstream refused with HTTP 429, per connector per 5 min. */
  readonly upstreamRateLimited: number;
  /** Webhook bodies refused or not stored at `/inbound/<connector>` (audit `inbound`, status not `ok`) per 5 min. */
  readonly inboundRefused: number;
}

export interface DeploymentConfig {
  /** Short name of the deployment: stack names, function names, the dashboard. */
  readonly stage: string;
  /** Target account; unset: the CLI's current credentials decide. */
  readonly account?: string;
  readonly region: string;
  /** The deployment secret (MCP_SECRET_ID, QUOTA_SECRET_ID): a name, or a full ARN with its 6-character suffix. */
  readonly secretId: string;
  /** Customer-managed KMS key of the secret, if it has one (kms:Decrypt via Secrets Manager). */
  readonly secretKmsKeyArn?: string;
  readonly customDomain?: CustomDomainConfig;
  /** Host names besides the API Gateway host and the custom domain (MCP_ALLOWED_HOSTS). */
  readonly allowedHosts: readonly string[];
  /** Browser origins allowed to call (MCP_ALLOWED_ORIGINS), e.g. `https://claude.ai`. */
  readonly allowedOrigins: readonly string[];
  /** Ops e-mail addresses: SNS subscriptions (alarms) and digest recipients. */
  readonly opsRecipients: readonly string[];
  /** From address of the digest; its SES identity is created in the ops stack. */
  readonly sender: string;
  /** Verify the sender as an e-mail address or its whole domain (then DKIM records are needed). */
  readonly senderIdentity: 'email' | 'domain';
  /** Retention of every log group, days (a value CloudWatch Logs accepts). */
  readonly logRetentionDays: number;
  /** CloudWatch namespace of the EMF metrics (MCP_EMF_NAMESPACE) and the log metric filters. */
  readonly metricsNamespace: string;
  readonly schedules: { readonly digest: ScheduleConfig; readonly quota: ScheduleConfig };
  readonly mcpServer: McpServerConfig;
  readonly digest: FunctionSizing & {
    /** Mail a short "all clear" for a week without failed calls (DIGEST_SEND_ALL_CLEAR). */
    readonly sendAllClear: boolean;
  };
  readonly quotaAlarm: FunctionSizing;
  /** HTTP API stage throttling (requests per second, burst). */
  readonly throttle: { readonly rateLimit: number; readonly burstLimit: number };
  readonly alarms: AlarmThresholds;
  /** Per connector `<CONNECTOR>_BASE_URL` (a sandbox upstream for a test stage). */
  readonly connectorBaseUrls: Readonly<Record<string, string>>;
  /** MCP_PROFILES: named tool sets (`connector/tool` globs), served at `/mcp/<name>`. */
  readonly profiles: Readonly<Record<string, readonly string[]>>;
  /** MCP_KEY_PROFILES: API key id → the one profile that key may use. */
  readonly keyProfiles: Readonly<Record<string, string>>;
  /** MCP_DEFAULT_PROFILE: the profile of a key missing from `keyProfiles` (unset: refused). */
  readonly defaultProfile?: string;
  /** MCP_USER_HEADER_KEYS: API key ids trusted to assert `x-user-email` (Open WebUI); others' header is ignored. */
  readonly userHeaderKeys: readonly string[];
  /**
   * MCP_TOKEN_CONFIRMS_CRITICAL: profiles (names from `profiles`, or `*` for the whole
   * deployment) whose `critical` tools accept a confirmation token; elsewhere they need a
   * person's answer through the client (elicitation). Empty: nowhere.
   */
  readonly tokenConfirmsCritical: readonly string[];
  /** OAuth 2.1 resource server (issue 13); unset: API keys only, as before. */
  readonly oauth?: OAuthConfig;
  readonly ledger: LedgerConfig;
  /** Connectors acting with each person's own upstream account (`auth: oauth_user`): the vault
   * table, its KMS key and the `/connect` routes; unset: none of it. Needs `oauth`. */
  readonly perUserConnectors?: PerUserConnectorsConfig;
}

export interface PerUserConnectorsConfig {
  /**
   * Our public client (PKCE, no secret) at our own authorization server that `/connect/<connector>`
   * signs a person in with (MCP_CONNECT_CLIENT_ID). Required with `oauth.external`; with
   * `oauth.cognito` a client is created when unset (given: one you made, added to the audience);
   * refused with `oauth.authorizationServer`, whose own connect client mcp-server knows.
   */
  readonly connectClientId?: string;
  /** Point-in-time recovery of the vault table with this period in days (1–35); unset: off. */
  readonly pointInTimeRecoveryDays?: number;
}

export interface LedgerConfig {
  /**
   * Point-in-time recovery of the idempotency ledger, with this recovery period in days (1–35);
   * unset: off. Whatever the table held at any second of the period stays restorable that long,
   * recorded results (personal data) included.
   */
  readonly pointInTimeRecoveryDays?: number;
}

/** Values a configuration may leave out. */
export const DEFAULTS = {
  allowedHosts: [] as string[],
  allowedOrigins: [] as string[],
  senderIdentity: 'email' as const,
  logRetentionDays: 90,
  metricsNamespace: 'HostedMcp',
  /** `mcpServer.tracing.sampleRatio`: one new trace in ten. */
  tracingSampleRatio: 0.1,
  schedules: {
    // Monday 07:00 Berlin time (DST handled by the scheduler).
    digest: { expression: 'cron(0 7 ? * MON *)', timeZone: 'Europe/Berlin' },
    quota: { expression: 'rate(15 minutes)', timeZone: 'Europe/Berlin' },
  },
  // Sized by the benchmark (tests/bench): memory buys CPU on Lambda, and the server's cold start
  // and per-request cost are measured there. Change these only with a bench run to back it.
  mcpServer: {
    memoryMb: 256,
    timeoutSeconds: 10,
    secretTtlSeconds: 300,
    maxBodyBytes: 1024 * 1024,
    maxResultBytes: 25 * 1024,
    healthTimeoutMs: 2000,
    healthIntervalSeconds: 900,
    // Sized for a ten-person company; 0 turns one off.
    limits: { perIpPerMinute: 120, ipv6Prefix: 64, perCallerPerMinute: 60, dailyCalls: 20_000, table: true, tableTimeoutMs: 250 },
    trustedProxies: [] as string[],
  },
  // Logs Insights over a week of audit logs can take minutes.
  digest: { memoryMb: 256, timeoutSeconds: 300, sendAllClear: true },
  // Its Logs Insights query gets the timeout minus a minute (QUOTA_QUERY_TIMEOUT_SECS).
  quotaAlarm: { memoryMb: 256, timeoutSeconds: 180 },
  throttle: { rateLimit: 50, burstLimit: 100 },
  alarms: {
    lambdaErrors: 1,
    lambdaThrottles: 1,
    // Default: 80 % of the mcp-server timeout (filled in from mcpServer.timeoutSeconds).
    durationP99Ms: undefined as number | undefined,
    api5xx: 5,
    authDenied: 20,
    dailyCallsUsedPct: 80,
    toolLatencyP95Ms: 3000,
    // One is worth a look: a write that may or may not have happened upstream.
    outcomeUnknown: 1,
    // A few refusals a minute are the limit at work; five in five minutes is a pattern.
    upstreamRateLimited: 5,
    // A stray forged request is noise; ten in five minutes is a rotated secret or an attack.
    inboundRefused: 10,
  },
  connectorBaseUrls: {} as Record<string, string>,
};

/** Retention values CloudWatch Logs accepts (days). */
export const LOG_RETENTION_DAYS = [
  1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192, 2557, 2922,
  3288, 3653,
] as const;

/** The Lambda integration of an HTTP API gives up after 30 s, whatever the function timeout. */
export const HTTP_API_MAX_TIMEOUT_SECONDS = 29;

export class ConfigError extends Error {
  readonly problems: readonly string[];
  constructor(source: string, problems: readonly string[]) {
    super(`${source}: invalid deployment configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
    this.problems = problems;
  }
}

const EMAIL = /^[^\s@,]+@[^\s@,]+\.[^\s@,]+$/;
const REGION = /^[a-z]{2}(-[a-z]+)+-\d$/;
const SECRET_NAME = /^[A-Za-z0-9/_+=.@-]{1,512}$/;
const SECRET_ARN = /^arn:aws[a-z-]*:secretsmanager:[a-z0-9-]+:\d{12}:secret:[A-Za-z0-9/_+=.@-]+-[A-Za-z0-9]{6}$/;
const KMS_KEY_ARN = /^arn:aws[a-z-]*:kms:[a-z0-9-]+:\d{12}:key\/[0-9a-f-]{36}$/;
const SCHEDULE = /^(cron\((\S+ ){5}\S+\)|rate\([1-9]\d* (minute|minutes|hour|hours|day|days)\))$/;
const NAMESPACE = /^[A-Za-z0-9._#:/-]{1,255}$/;
const CONNECTOR_ENV = /^[a-z][a-z0-9_]*$/;

function validTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

const TOP_KEYS = [
  'stage', 'account', 'region', 'secretId', 'secretKmsKeyArn', 'customDomain', 'allowedHosts',
  'allowedOrigins', 'opsRecipients', 'sender', 'senderIdentity', 'logRetentionDays',
  'metricsNamespace', 'schedules', 'mcpServer', 'digest', 'quotaAlarm', 'throttle', 'alarms',
  'connectorBaseUrls', 'profiles', 'keyProfiles', 'defaultProfile', 'userHeaderKeys',
  'tokenConfirmsCritical', 'oauth', 'ledger', 'perUserConnectors',
] as const;

/**
 * Validates a raw configuration object and fills in the defaults.
 * `connectors` are the catalog connector names (to check `connectorBaseUrls`).
 */
export function parseConfig(raw: unknown, source: string, connectors: readonly string[]): DeploymentConfig {
  const c = new Checker();
  const top = c.object('', raw ?? undefined, TOP_KEYS);
  if (raw === undefined || raw === null) c.problem('(root)', 'no configuration given');

  const stage = c.required('stage', c.string('stage', top.stage, /^[a-z][a-z0-9-]{0,19}$/, 'a lower-case name of up to 20 letters, digits and dashes starting with a letter'), 'the deployment name, e.g. `prod`');
  const account = c.string('account', top.account, /^\d{12}$/, 'a 12-digit AWS account id');
  const region = c.required('region', c.string('region', top.region, REGION, 'an AWS region such as `eu-central-1`'), 'the AWS region');

  let secretId: string;
  if (typeof top.secretId === 'string' && top.secretId.startsWith('arn:')) {
    secretId = c.string('secretId', top.secretId, SECRET_ARN,
      'a full secret ARN ending in its 6-character suffix (a partial ARN cannot be granted exactly; or give the name)') as string;
  } else {
    secretId = c.required('secretId', c.string('secretId', top.secretId, SECRET_NAME, 'a secret name or a full secret ARN'),
      'the deployment secret (MCP_SECRET_ID)');
  }
  const secretKmsKeyArn = c.string('secretKmsKeyArn', top.secretKmsKeyArn, KMS_KEY_ARN, 'a KMS key ARN');

  let customDomain: CustomDomainConfig | undefined;
  if (top.customDomain !== undefined) {
    const d = c.object('customDomain', top.customDomain, ['domainName', 'certificateArn', 'hostedZone']);
    const domainName = c.required('customDomain.domainName', c.string('customDomain.domainName', d.domainName, HOST, 'a lower-case host name'), 'the custom domain');
    const certificateArn = c.required('customDomain.certificateArn', c.string('customDomain.certificateArn', d.certificateArn,
      /^arn:aws[a-z-]*:acm:[a-z0-9-]+:\d{12}:certificate\/[0-9a-f-]+$/, 'an ACM certificate ARN'), 'the ACM certificate of the domain');
    const certRegion = certificateArn?.split(':')[3];
    if (requestedFrontDoor(top.oauth) === 'cloudfront') {
      // CloudFront serves the domain then, and takes certificates from us-east-1 only.
      if (certRegion && certRegion !== 'us-east-1') {
        c.problem('customDomain.certificateArn', `with \`oauth\` (front door \`cloudfront\`) CloudFront serves the domain: the certificate must be in us-east-1, not in ${certRegion}`);
      }
    } else if (certRegion && region && certRegion !== region) {
      c.problem('customDomain.certificateArn', `must be a certificate in ${region} (the API's regional endpoint), not in ${certRegion}`);
    }
    let hostedZone: CustomDomainConfig['hostedZone'];
    if (d.hostedZone !== undefined) {
      const z = c.object('customDomain.hostedZone', d.hostedZone, ['id', 'name']);
      const id = c.required('customDomain.hostedZone.id', c.string('customDomain.hostedZone.id', z.id, /^Z[A-Z0-9]{1,31}$/, 'a Route 53 hosted zone id'), 'the zone id');
      const name = c.required('customDomain.hostedZone.name', c.string('customDomain.hostedZone.name', z.name, HOST, 'the zone name'), 'the zone name');
      if (name && domainName && !(domainName === name || domainName.endsWith(`.${name}`))) {
        c.problem('customDomain.hostedZone.name', `\`${domainName}\` is not in zone \`${name}\``);
      }
      hostedZone = { id, name };
    }
    customDomain = { domainName, certificateArn, ...(hostedZone ? { hostedZone } : {}) };
  }

  const allowedHosts = c.list('allowedHosts', top.allowedHosts, HOST, 'lower-case host names (optionally host:port)');
  const allowedOrigins = c.list('allowedOrigins', top.allowedOrigins, /^https:\/\/[^\s/,]+$/, 'https:// origins without a path, e.g. `https://claude.ai`');
  const opsRecipients = c.list('opsRecipients', top.opsRecipients, EMAIL, 'e-mail addresses');
  if (top.opsRecipients === undefined || (Array.isArray(top.opsRecipients) && top.opsRecipients.length === 0)) {
    c.problem('opsRecipients', 'required: at least one ops e-mail address (alarms and the weekly digest)');
  }
  const sender = c.required('sender', c.string('sender', top.sender, EMAIL, 'an e-mail address'), 'the From address of the digest');
  const senderIdentity = (c.string('senderIdentity', top.senderIdentity, /^(email|domain)$/, '`email` or `domain`') ?? DEFAULTS.senderIdentity) as 'email' | 'domain';

  let logRetentionDays = DEFAULTS.logRetentionDays;
  if (top.logRetentionDays !== undefined) {
    if (!(LOG_RETENTION_DAYS as readonly unknown[]).includes(top.logRetentionDays)) {
      c.problem('logRetentionDays', `expected one of ${LOG_RETENTION_DAYS.join(', ')}, got ${describe(top.logRetentionDays)}`);
    } else {
      logRetentionDays = top.logRetentionDays as number;
    }
  }
  const metricsNamespace = c.string('metricsNamespace', top.metricsNamespace, NAMESPACE, 'a CloudWatch namespace') ?? DEFAULTS.metricsNamespace;
  if (metricsNamespace.startsWith('AWS/')) c.problem('metricsNamespace', 'the AWS/ prefix is reserved');

  const sched = c.object('schedules', top.schedules, ['digest', 'quota']);
  const schedule = (key: 'digest' | 'quota'): ScheduleConfig => {
    const path = `schedules.${key}`;
    const s = c.object(path, sched[key], ['expression', 'timeZone']);
    const expression = c.string(`${path}.expression`, s.expression, SCHEDULE, 'a scheduler expression: `cron(min hour day-of-month month day-of-week year)` or `rate(N minutes|hours|days)`') ?? DEFAULTS.schedules[key].expression;
    let timeZone = DEFAULTS.schedules[key].timeZone;
    if (s.timeZone !== undefined) {
      if (typeof s.timeZone === 'string' && validTimeZone(s.timeZone)) timeZone = s.timeZone;
      else c.problem(`${path}.timeZone`, `expected an IANA time zone such as \`Europe/Berlin\`, got ${describe(s.timeZone)}`);
    }
    return { expression, timeZone };
  };
  const schedules = { digest: schedule('digest'), quota: schedule('quota') };

  const m = c.object('mcpServer', top.mcpServer, ['memoryMb', 'timeoutSeconds', 'secretTtlSeconds', 'maxBodyBytes', 'maxResultBytes', 'healthTimeoutMs', 'healthIntervalSeconds', 'reservedConcurrency', 'limits', 'trustedProxies', 'tracing']);
  const l = c.object('mcpServer.limits', m.limits, ['perIpPerMinute', 'ipv6Prefix', 'perCallerPerMinute', 'dailyCalls', 'table', 'tableTimeoutMs']);
  const d = DEFAULTS.mcpServer;
  const mcpServer: McpServerConfig = {
    memoryMb: c.integer('mcpServer.memoryMb', m.memoryMb, d.memoryMb, 128, 10240),
    timeoutSeconds: c.integer('mcpServer.timeoutSeconds', m.timeoutSeconds, d.timeoutSeconds, 1, HTTP_API_MAX_TIMEOUT_SECONDS),
    secretTtlSeconds: c.integer('mcpServer.secretTtlSeconds', m.secretTtlSeconds, d.secretTtlSeconds, 0, 86400),
    maxBodyBytes: c.integer('mcpServer.maxBodyBytes', m.maxBodyBytes, d.maxBodyBytes, 1024, 6 * 1024 * 1024),
    // config.rs refuses less than 1024.
    maxResultBytes: c.integer('mcpServer.maxResultBytes', m.maxResultBytes, d.maxResultBytes, 1024, 6 * 1024 * 1024),
    healthTimeoutMs: c.integer('mcpServer.healthTimeoutMs', m.healthTimeoutMs, d.healthTimeoutMs, 100, 10000),
    // config.rs accepts 1 to 86400.
    healthIntervalSeconds: c.integer('mcpServer.healthIntervalSeconds', m.healthIntervalSeconds, d.healthIntervalSeconds, 1, 86400),
    limits: {
      perIpPerMinute: c.integer('mcpServer.limits.perIpPerMinute', l.perIpPerMinute, d.limits.perIpPerMinute, 0, 1_000_000),
      ipv6Prefix: c.integer('mcpServer.limits.ipv6Prefix', l.ipv6Prefix, d.limits.ipv6Prefix, 32, 128),
      perCallerPerMinute: c.integer('mcpServer.limits.perCallerPerMinute', l.perCallerPerMinute, d.limits.perCallerPerMinute, 0, 1_000_000),
      dailyCalls: c.integer('mcpServer.limits.dailyCalls', l.dailyCalls, d.limits.dailyCalls, 0, 100_000_000),
      table: c.boolean('mcpServer.limits.table', l.table, d.limits.table),
      // On a tool call's hot path: short, and far below any call deadline.
      tableTimeoutMs: c.integer('mcpServer.limits.tableTimeoutMs', l.tableTimeoutMs, d.limits.tableTimeoutMs, 10, 2000),
    },
    trustedProxies: m.trustedProxies === undefined
      ? d.trustedProxies
      : c.list('mcpServer.trustedProxies', m.trustedProxies, /^[0-9A-Fa-f:.]+(\/\d{1,3})?$/, 'addresses or ranges such as 130.176.0.0/16'),
    ...(m.reservedConcurrency !== undefined
      ? { reservedConcurrency: c.integer('mcpServer.reservedConcurrency', m.reservedConcurrency, 1, 1, 1000) }
      : {}),
    ...(m.tracing !== undefined ? { tracing: tracingConfig(c, m.tracing) } : {}),
  };

  const sizing = (key: 'digest' | 'quotaAlarm', minTimeout: number, extraKeys: string[] = []): FunctionSizing => {
    const s = c.object(key, top[key], ['memoryMb', 'timeoutSeconds', ...extraKeys]);
    return {
      memoryMb: c.integer(`${key}.memoryMb`, s.memoryMb, DEFAULTS[key].memoryMb, 128, 10240),
      timeoutSeconds: c.integer(`${key}.timeoutSeconds`, s.timeoutSeconds, DEFAULTS[key].timeoutSeconds, minTimeout, 900),
    };
  };

  const digestRaw = (typeof top.digest === 'object' && top.digest !== null ? top.digest : {}) as Json;
  let sendAllClear = DEFAULTS.digest.sendAllClear;
  if (digestRaw.sendAllClear !== undefined) {
    if (typeof digestRaw.sendAllClear === 'boolean') sendAllClear = digestRaw.sendAllClear;
    else c.problem('digest.sendAllClear', `expected true or false, got ${describe(digestRaw.sendAllClear)}`);
  }
  // Each Logs Insights query gets up to 2 minutes and must end a minute before the function.
  const digest = { ...sizing('digest', 90, ['sendAllClear']), sendAllClear };
  const quotaAlarm = sizing('quotaAlarm', 90);

  const t = c.object('throttle', top.throttle, ['rateLimit', 'burstLimit']);
  const throttle = {
    rateLimit: c.integer('throttle.rateLimit', t.rateLimit, DEFAULTS.throttle.rateLimit, 1, 10000),
    burstLimit: c.integer('throttle.burstLimit', t.burstLimit, DEFAULTS.throttle.burstLimit, 1, 5000),
  };

  const a = c.object('alarms', top.alarms, ['lambdaErrors', 'lambdaThrottles', 'durationP99Ms', 'api5xx', 'authDenied', 'dailyCallsUsedPct', 'toolLatencyP95Ms', 'outcomeUnknown', 'upstreamRateLimited', 'inboundRefused']);
  const timeoutMs = mcpServer.timeoutSeconds * 1000;
  const alarms: AlarmThresholds = {
    lambdaErrors: c.integer('alarms.lambdaErrors', a.lambdaErrors, DEFAULTS.alarms.lambdaErrors, 1, 100000),
    lambdaThrottles: c.integer('alarms.lambdaThrottles', a.lambdaThrottles, DEFAULTS.alarms.lambdaThrottles, 1, 100000),
    durationP99Ms: c.integer('alarms.durationP99Ms', a.durationP99Ms, Math.round(timeoutMs * 0.8), 1, timeoutMs),
    api5xx: c.integer('alarms.api5xx', a.api5xx, DEFAULTS.alarms.api5xx, 1, 100000),
    authDenied: c.integer('alarms.authDenied', a.authDenied, DEFAULTS.alarms.authDenied, 1, 100000),
    dailyCallsUsedPct: c.integer('alarms.dailyCallsUsedPct', a.dailyCallsUsedPct, DEFAULTS.alarms.dailyCallsUsedPct, 1, 100),
    // A tool call cannot take longer than the function's timeout.
    toolLatencyP95Ms: c.integer('alarms.toolLatencyP95Ms', a.toolLatencyP95Ms, Math.min(DEFAULTS.alarms.toolLatencyP95Ms, timeoutMs), 1, timeoutMs),
    outcomeUnknown: c.integer('alarms.outcomeUnknown', a.outcomeUnknown, DEFAULTS.alarms.outcomeUnknown, 1, 100000),
    upstreamRateLimited: c.integer('alarms.upstreamRateLimited', a.upstreamRateLimited, DEFAULTS.alarms.upstreamRateLimited, 1, 100000),
    inboundRefused: c.integer('alarms.inboundRefused', a.inboundRefused, DEFAULTS.alarms.inboundRefused, 1, 100000),
  };

  const urls = c.object('connectorBaseUrls', top.connectorBaseUrls, connectors);
  const connectorBaseUrls: Record<string, string> = {};
  for (const [name, url] of Object.entries(urls)) {
    if (!connectors.includes(name)) continue; // reported as an unknown key above
    const u = c.string(`connectorBaseUrls.${name}`, url, /^https:\/\/\S+$/, 'an https:// URL');
    if (u) connectorBaseUrls[name] = u;
  }

  const profiles: Record<string, string[]> = {};
  const rawProfiles = top.profiles;
  if (rawProfiles !== undefined) {
    if (typeof rawProfiles !== 'object' || rawProfiles === null || Array.isArray(rawProfiles)) {
      c.problem('profiles', `expected an object of profile name → ["connector/tool", …], got ${describe(rawProfiles)}`);
    } else {
      for (const [name, patterns] of Object.entries(rawProfiles)) {
        if (!/^[A-Za-z0-9_-]+$/.test(name)) c.problem(`profiles.${name}`, 'profile names are letters, digits, - or _');
        const list = c.list(`profiles.${name}`, patterns, /^[^\s,;=/]+\/[^\s,;=/]+$/, '`connector/tool` patterns (`*` allowed)');
        if (list.length === 0 && Array.isArray(patterns)) c.problem(`profiles.${name}`, 'needs at least one pattern');
        profiles[name] = list;
      }
    }
  }
  const keyProfiles: Record<string, string> = {};
  const rawKeys = top.keyProfiles;
  if (rawKeys !== undefined) {
    if (typeof rawKeys !== 'object' || rawKeys === null || Array.isArray(rawKeys)) {
      c.problem('keyProfiles', `expected an object of API key id → profile name, got ${describe(rawKeys)}`);
    } else {
      for (const [key, profile] of Object.entries(rawKeys)) {
        if (!/^[^\s,=]+$/.test(key)) c.problem(`keyProfiles.${key}`, 'key ids contain no spaces, commas or =');
        if (typeof profile !== 'string' || !(profile in profiles)) {
          c.problem(`keyProfiles.${key}`, `${describe(profile)} is not a profile defined in \`profiles\``);
        } else {
          keyProfiles[key] = profile;
        }
      }
    }
  }
  let defaultProfile: string | undefined;
  if (top.defaultProfile !== undefined) {
    if (typeof top.defaultProfile !== 'string' || !(top.defaultProfile in profiles)) {
      c.problem('defaultProfile', `${describe(top.defaultProfile)} is not a profile defined in \`profiles\``);
    } else {
      defaultProfile = top.defaultProfile;
    }
  }

  const userHeaderKeys = c.list('userHeaderKeys', top.userHeaderKeys, /^[^\s,=]+$/, 'API key ids (no spaces, commas or =)');
  const tokenConfirmsCritical = c.list('tokenConfirmsCritical', top.tokenConfirmsCritical, /^(\*|[A-Za-z0-9_-]+)$/,
    'profile names, or `*` for the whole deployment');
  // Indexed as written (c.list drops the malformed entries from what it returns).
  (Array.isArray(top.tokenConfirmsCritical) ? top.tokenConfirmsCritical as unknown[] : []).forEach((p, i) => {
    if (typeof p === 'string' && /^[A-Za-z0-9_-]+$/.test(p) && !Object.hasOwn(profiles, p)) {
      c.problem(`tokenConfirmsCritical[${i}]`, `\`${p}\` is not a profile defined in \`profiles\` (or \`*\` for the whole deployment)`);
    }
  });
  if (tokenConfirmsCritical.includes('*') && tokenConfirmsCritical.length > 1) {
    c.problem('tokenConfirmsCritical', '`*` already covers every profile: give `["*"]` alone, or the profile names');
  }
  const oauth = parseOAuthConfig(c, top.oauth, {
    profiles: Object.keys(profiles),
    ...(customDomain?.domainName ? { customDomain: customDomain.domainName } : {}),
    timeoutMs,
  });

  const lg = c.object('ledger', top.ledger, ['pointInTimeRecoveryDays']);
  const ledger: LedgerConfig = lg.pointInTimeRecoveryDays === undefined ? {} : {
    // DynamoDB's RecoveryPeriodInDays: 1 to 35.
    pointInTimeRecoveryDays: c.integer('ledger.pointInTimeRecoveryDays', lg.pointInTimeRecoveryDays, 1, 1, 35),
  };

  let perUserConnectors: PerUserConnectorsConfig | undefined;
  if (top.perUserConnectors !== undefined) {
    const p = c.object('perUserConnectors', top.perUserConnectors, ['connectClientId', 'pointInTimeRecoveryDays']);
    const connectClientId = c.string('perUserConnectors.connectClientId', p.connectClientId, /^[\x21-\x7e]{1,256}$/,
      'an OAuth client id (printable characters, no spaces)');
    if (top.oauth === undefined) {
      c.problem('perUserConnectors', 'needs `oauth`: a person connects their own account after signing in at our authorization server, and API keys name no person');
    } else if (oauth?.authorizationServer && connectClientId !== undefined) {
      c.problem('perUserConnectors.connectClientId', 'not with `oauth.authorizationServer`: mcp-server is then the authorization server /connect signs a person in at, ' +
        'with a client of its own (hosted-mcp-connect) whose redirect URIs are the connect pages; leave it out');
    } else if (oauth?.external && connectClientId === undefined) {
      c.problem('perUserConnectors.connectClientId', 'required with `oauth.external`: a public client (PKCE, no secret) at that server whose redirect URIs are <base>/connect/<connector>/signed-in and <base>/connections/signed-in');
    }
    perUserConnectors = {
      ...(connectClientId === undefined ? {} : { connectClientId }),
      ...(p.pointInTimeRecoveryDays === undefined ? {} : {
        pointInTimeRecoveryDays: c.integer('perUserConnectors.pointInTimeRecoveryDays', p.pointInTimeRecoveryDays, 1, 1, 35),
      }),
    };
  }

  if (c.problems.length > 0) throw new ConfigError(source, c.problems);
  return {
    stage, ...(account ? { account } : {}), region, secretId,
    ...(secretKmsKeyArn ? { secretKmsKeyArn } : {}),
    ...(customDomain ? { customDomain } : {}),
    allowedHosts, allowedOrigins, opsRecipients, sender, senderIdentity, logRetentionDays,
    metricsNamespace, schedules, mcpServer, digest, quotaAlarm,
    throttle, alarms, connectorBaseUrls, profiles, keyProfiles,
    ...(defaultProfile === undefined ? {} : { defaultProfile }),
    userHeaderKeys, tokenConfirmsCritical,
    ...(oauth ? { oauth } : {}),
    ledger,
    ...(perUserConnectors ? { perUserConnectors } : {}),
  };
}

/** Context keys the app reads. */
export const CONTEXT_CONFIG_FILE = 'config';
export const CONTEXT_CONFIG_OBJECT = 'hostedMcp';

/**
 * The configuration from CDK context: `config` (a JSON file, relative to infra/) wins over an
 * inline `hostedMcp` object.
 */
export function loadConfig(
  tryGetContext: (key: string) => unknown,
  connectors: readonly string[],
): DeploymentConfig {
  const file = tryGetContext(CONTEXT_CONFIG_FILE);
  if (file !== undefined) {
    if (typeof file !== 'string' || file === '') {
      throw new ConfigError('context `config`', ['expected the path of a JSON configuration file']);
    }
    const path = isAbsolute(file) ? file : join(INFRA_DIR, file);
    if (!existsSync(path)) {
      throw new ConfigError(file, [`no such file (looked for ${path})`]);
    }
    let raw: unknown;
    try {
      raw = JSON.parse(readFileSync(path, 'utf8'));
    } catch (e) {
      throw new ConfigError(file, [`not valid JSON: ${(e as Error).message}`]);
    }
    return parseConfig(raw, file, connectors);
  }
  const inline = tryGetContext(CONTEXT_CONFIG_OBJECT);
  if (inline !== undefined) {
    const raw = typeof inline === 'string' ? safeJson(inline) : inline;
    return parseConfig(raw, `context \`${CONTEXT_CONFIG_OBJECT}\``, connectors);
  }
  throw new ConfigError('cdk context', [
    'no deployment configuration: pass `-c config=config/<stage>.json` (see config/example.json), ' +
      `or set a \`${CONTEXT_CONFIG_OBJECT}\` object in cdk.json / cdk.context.json`,
  ]);
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text; // reported by parseConfig as "expected an object"
  }
}

/** `<CONNECTOR>` of `<CONNECTOR>_EXPOSE_RAW`: what config.rs derives with `to_ascii_uppercase`. */
export function connectorEnvPrefix(connector: string): string {
  if (!CONNECTOR_ENV.test(connector)) {
    throw new Error(`connector \`${connector}\`: not usable in an environment variable name (use [a-z][a-z0-9_]*)`);
  }
  return connector.toUpperCase();
}

/** `mcpServer.tracing`: `{ sampleRatio?, layerArn? }`. */
function tracingConfig(c: Checker, raw: unknown): TracingConfig {
  const t = c.object('mcpServer.tracing', raw, ['sampleRatio', 'layerArn']);
  let sampleRatio = DEFAULTS.tracingSampleRatio;
  if (t.sampleRatio !== undefined) {
    if (typeof t.sampleRatio === 'number' && t.sampleRatio >= 0 && t.sampleRatio <= 1) sampleRatio = t.sampleRatio;
    else c.problem('mcpServer.tracing.sampleRatio', `expected a share from 0 to 1, got ${describe(t.sampleRatio)}`);
  }
  const layerArn = c.string('mcpServer.tracing.layerArn', t.layerArn,
    /^arn:aws[a-z-]*:lambda:[a-z0-9-]+:\d{12}:layer:[A-Za-z0-9_-]+:\d+$/, 'a Lambda layer version ARN');
  return { sampleRatio, ...(layerArn ? { layerArn } : {}) };
}
