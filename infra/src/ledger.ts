// Writes with consent on the infra side (issue 11): mcp-server's idempotency ledger (a DynamoDB
// table, one item per idempotency key), the metric filter on the audit lines of writes whose
// outcome is unknown, and the alarm on it.
import { type Duration, RemovalPolicy } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as logs from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import type { DeploymentConfig } from './config.ts';
import { alarmName, ledgerTableName } from './names.ts';

/**
 * The ledger's key and TTL attribute, as mcp-server writes them (functions/mcp-server/src/call/ledger/table.rs);
 * its MCP tasks share the table under keys `task:<id>` with the same TTL attribute
 * (functions/mcp-server/src/tasks/table.rs).
 */
export const LEDGER_TABLE_SCHEMA = { partitionKey: 'pk', ttlAttribute: 'expires_at' } as const;

/** The audit field of a write's ledger outcome (`new`, `replayed`, `conflict`, `unknown`) and the value alarmed on. */
export const IDEMPOTENCY_FIELD = 'idempotency';
export const IDEMPOTENCY_UNKNOWN = 'unknown';

/** Metric-filter metric (in the deployment's metrics namespace): audit lines with `idempotency` `unknown`. */
export const OUTCOME_UNKNOWN_METRIC = 'OutcomeUnknown';

/**
 * The ledger: one item per idempotency key, expiring by TTL after a day. Unlike the limit
 * counters it is kept when the stack goes and protected against deletion: an entry is the record
 * that a write (an invoice sent, a payment booked) already happened, and losing it would let a
 * retry run the write again. Point-in-time recovery is off unless `ledger.pointInTimeRecoveryDays`
 * asks for it: the recorded results may hold personal data, and with recovery on every one stays
 * restorable for the recovery period (1–35 days), long after its entry expired; the table is only
 * worth anything for the 24 h an entry lives, which deletion protection and `Retain` cover.
 */
export function ledgerTable(scope: Construct, config: DeploymentConfig): dynamodb.Table {
  const days = config.ledger.pointInTimeRecoveryDays;
  return new dynamodb.Table(scope, 'LedgerTable', {
    tableName: ledgerTableName(config.stage),
    partitionKey: { name: LEDGER_TABLE_SCHEMA.partitionKey, type: dynamodb.AttributeType.STRING },
    billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
    timeToLiveAttribute: LEDGER_TABLE_SCHEMA.ttlAttribute,
    pointInTimeRecoverySpecification: days === undefined
      ? { pointInTimeRecoveryEnabled: false }
      : { pointInTimeRecoveryEnabled: true, recoveryPeriodInDays: days },
    deletionProtection: true,
    removalPolicy: RemovalPolicy.RETAIN,
  });
}

/** Counts the audit lines of writes answered `outcome_unknown` (a claim without a recorded result). */
export function outcomeUnknownFilter(scope: Construct, logGroup: logs.ILogGroup, namespace: string): logs.MetricFilter {
  return new logs.MetricFilter(scope, 'OutcomeUnknownFilter', {
    logGroup,
    filterPattern: logs.FilterPattern.stringValue(`$.${IDEMPOTENCY_FIELD}`, '=', IDEMPOTENCY_UNKNOWN),
    metricNamespace: namespace,
    metricName: OUTCOME_UNKNOWN_METRIC,
    metricValue: '1',
    defaultValue: 0,
    unit: cloudwatch.Unit.COUNT,
  });
}

/**
 * The alarm on unknown outcomes, created through `alarm` (which adds the ops topic and
 * missing-data handling). One is enough to look: a write may or may not have happened upstream,
 * and only a person checking the upstream record can say which.
 */
export function ledgerAlarms(
  config: DeploymentConfig,
  filter: logs.MetricFilter,
  alarm: (id: string, props: cloudwatch.AlarmProps) => cloudwatch.Alarm,
  period: Duration,
): void {
  const threshold = config.alarms.outcomeUnknown;
  alarm('OutcomeUnknownAlarm', {
    alarmName: alarmName(config.stage, 'outcome-unknown'),
    alarmDescription:
      `${threshold} or more write calls answered outcome_unknown in 5 minutes: a write was sent upstream and its answer never ` +
      'recorded (timeout, crash), so it may or may not have happened; a retry with the same key answers outcome_unknown again until ' +
      'the entry expires (24 h). ' +
      `Find the calls in the audit log (filter ${IDEMPOTENCY_FIELD} = "${IDEMPOTENCY_UNKNOWN}": tool, audit_event, key_id, user) ` +
      'and check the upstream record with the matching get or list tool.',
    metric: filter.metric({ period, statistic: cloudwatch.Stats.SUM }),
    threshold,
    evaluationPeriods: 1,
    comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
  });
}
