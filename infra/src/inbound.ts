// Inbound webhooks on the infra side (issue 45, item 4): the table of the events upstreams push
// to mcp-server's `/inbound/<connector>` (TTL, sealed with data keys of a KMS key of its own),
// mcp-server's grants on both, its environment, the route (GET for the handshake, POST for the
// signed bodies; no authorizer: the signature is the proof) and the alarm on refused bodies.
// Created only when a deployed catalog declares `inbound`.
import { type Duration, RemovalPolicy } from 'aws-cdk-lib';
import * as apigw from 'aws-cdk-lib/aws-apigatewayv2';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as logs from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import type { DeploymentConfig } from './config.ts';
import { alarmName, inboundKeyAlias, inboundTableName } from './names.ts';

/** The names mcp-server reads (functions/mcp-server/src/config/mod.rs). */
export const INBOUND_ENV = {
  inboundTable: 'MCP_INBOUND_TABLE',
  inboundKeyId: 'MCP_INBOUND_KEY_ID',
} as const;

/**
 * The table's keys as mcp-server writes them (functions/mcp-server/src/inbound/table.rs): the
 * conversation's slot `<connector>#<digest>` and the event's `<time>#<digest>`; `expires_at`
 * (Unix seconds) is the TTL attribute, `ttl_days` of the catalog after the event came.
 */
export const INBOUND_TABLE_SCHEMA = { partitionKey: 'pk', sortKey: 'sk', ttlAttribute: 'expires_at' } as const;

/** The encryption context key of every GenerateDataKey and Decrypt (inbound/table.rs `CONTEXT_KEY`). */
export const INBOUND_CONTEXT_KEY = 'connector';

/** The item requests mcp-server makes: a conditional put per event, a query per read. */
export const INBOUND_TABLE_ACTIONS = ['dynamodb:PutItem', 'dynamodb:Query'] as const;
/** The KMS requests of the envelope encryption: a data key per connector, unwrapped again on read. */
export const INBOUND_KEY_ACTIONS = ['kms:GenerateDataKey', 'kms:Decrypt'] as const;

/** The route mcp-server serves the webhooks on. */
export const INBOUND_PATH = '/inbound/{connector}';

/** The audit lines the alarm counts (shared/audit): `event` `inbound` with a `status` other than `ok`. */
export const INBOUND_EVENT = 'inbound';
export const INBOUND_REFUSED_METRIC = 'InboundRefused';

/**
 * The table: partition key `pk`, sort key `sk` (both strings), TTL on `expires_at`, on demand,
 * no index, no stream. What it holds is sealed before it gets there and expires on its own, so
 * point-in-time recovery is off (a restore would bring back what the TTL removed). Kept when the
 * stack goes and protected against deletion, as the other tables.
 */
export function inboundTable(scope: Construct, stage: string): dynamodb.Table {
  return new dynamodb.Table(scope, 'InboundTable', {
    tableName: inboundTableName(stage),
    partitionKey: { name: INBOUND_TABLE_SCHEMA.partitionKey, type: dynamodb.AttributeType.STRING },
    sortKey: { name: INBOUND_TABLE_SCHEMA.sortKey, type: dynamodb.AttributeType.STRING },
    timeToLiveAttribute: INBOUND_TABLE_SCHEMA.ttlAttribute,
    billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
    encryption: dynamodb.TableEncryption.DEFAULT,
    pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: false },
    deletionProtection: true,
    removalPolicy: RemovalPolicy.RETAIN,
  });
}

/** The inbound key: symmetric, yearly automatic rotation, kept when the stack goes. */
export function inboundKey(scope: Construct, stage: string): kms.Key {
  return new kms.Key(scope, 'InboundKey', {
    alias: inboundKeyAlias(stage),
    description: `hosted-mcp ${stage}: seals the events upstreams push to /inbound (data keys, context "${INBOUND_CONTEXT_KEY}")`,
    enableKeyRotation: true,
    removalPolicy: RemovalPolicy.RETAIN,
  });
}

/**
 * mcp-server's grants: PutItem and Query on the table's ARN (no Scan, no delete: the TTL
 * removes), and GenerateDataKey and Decrypt on the key only with an encryption context of
 * exactly one key, `connector`.
 */
export function allowInbound(role: iam.Role, table: dynamodb.ITable, key: kms.IKey): void {
  role.addToPrincipalPolicy(
    new iam.PolicyStatement({
      sid: 'InboundItems',
      actions: [...INBOUND_TABLE_ACTIONS],
      resources: [table.tableArn],
    }),
  );
  role.addToPrincipalPolicy(
    new iam.PolicyStatement({
      sid: 'InboundDataKeys',
      actions: [...INBOUND_KEY_ACTIONS],
      resources: [key.keyArn],
      conditions: {
        'ForAllValues:StringEquals': { 'kms:EncryptionContextKeys': [INBOUND_CONTEXT_KEY] },
        Null: { [`kms:EncryptionContext:${INBOUND_CONTEXT_KEY}`]: 'false' },
      },
    }),
  );
}

/** GET (the handshake) and POST (the bodies) to mcp-server, without an authorizer, as `/mcp`. */
export function addInboundRoutes(api: apigw.HttpApi, integration: apigw.HttpRouteIntegration): void {
  api.addRoutes({ path: INBOUND_PATH, methods: [apigw.HttpMethod.GET, apigw.HttpMethod.POST], integration });
}

/** Counts the `inbound` audit lines of refused or failed bodies (401, 413, 400, 503). */
export function inboundRefusedFilter(scope: Construct, logGroup: logs.ILogGroup, namespace: string): logs.MetricFilter {
  return new logs.MetricFilter(scope, 'InboundRefusedFilter', {
    logGroup,
    filterPattern: logs.FilterPattern.all(
      logs.FilterPattern.stringValue('$.event', '=', INBOUND_EVENT),
      logs.FilterPattern.stringValue('$.status', '!=', 'ok'),
    ),
    metricNamespace: namespace,
    metricName: INBOUND_REFUSED_METRIC,
    metricValue: '1',
    defaultValue: 0,
    unit: cloudwatch.Unit.COUNT,
  });
}

/** The alarm on refused webhook bodies, created through `alarm` (ops topic, missing data). */
export function inboundAlarms(
  config: DeploymentConfig,
  filter: logs.MetricFilter,
  alarm: (id: string, props: cloudwatch.AlarmProps) => cloudwatch.Alarm,
  period: Duration,
): void {
  const threshold = config.alarms.inboundRefused;
  alarm('InboundRefusedAlarm', {
    alarmName: alarmName(config.stage, 'inbound-refused'),
    alarmDescription:
      `${threshold} or more webhook bodies refused or not stored in 5 minutes: wrong signatures (a rotated app secret not yet ` +
      'in the deployment secret, or someone forging), bodies over the limit or of an unexpected shape, or the inbound table or ' +
      `KMS failing (then the upstream retries). Filter the audit log on event = "${INBOUND_EVENT}" and read status and http_status.`,
    metric: filter.metric({ period, statistic: cloudwatch.Stats.SUM }),
    threshold,
    evaluationPeriods: 1,
    comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
  });
}
