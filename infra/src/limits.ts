// mcp-server's rate limits on the infra side (issue 12): the shared DynamoDB counter table, the
// EMF metrics the limiter writes, and the alarms on them.
import { type Duration, RemovalPolicy } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type { Construct } from 'constructs';
import type { DeploymentConfig } from './config.ts';
import { alarmName, limitsTableName } from './names.ts';

/** The counter table's key and TTL attribute, as mcp-server writes them. */
export const LIMITS_TABLE_SCHEMA = { partitionKey: 'pk', ttlAttribute: 'expires_at' } as const;

/**
 * EMF metrics of mcp-server's `limiter` line (at most once a minute per instance), without
 * dimensions, in the deployment's metrics namespace.
 */
export const LIMITER_METRICS = {
  /** 1 while the instance's counter table failed and it counts in memory, else 0. */
  fallback: 'limiter_fallback',
  /** Share of the deployment's daily tool-call cap used today, 0–100. */
  dailyCallsUsedPct: 'daily_calls_used_pct',
} as const;

/** The `queries/` file of the dashboard's limits row (and the digest's "Limits hit" section). */
export const LIMITS_HIT_QUERY = 'limits-hit';

/**
 * The shared counters, or none when the configuration turns the table off (then each instance
 * counts in memory). The counters live minutes to a day and expire by TTL; nothing in them is
 * worth keeping, so the table goes with the stack, unlike the audit log.
 */
export function limitsTable(scope: Construct, config: DeploymentConfig): dynamodb.Table | undefined {
  if (!config.mcpServer.limits.table) return undefined;
  return new dynamodb.Table(scope, 'LimitsTable', {
    tableName: limitsTableName(config.stage),
    partitionKey: { name: LIMITS_TABLE_SCHEMA.partitionKey, type: dynamodb.AttributeType.STRING },
    billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
    timeToLiveAttribute: LIMITS_TABLE_SCHEMA.ttlAttribute,
    removalPolicy: RemovalPolicy.DESTROY,
  });
}

/** A limiter metric: no dimensions, the largest value any instance reported in the period. */
export function limiterMetric(namespace: string, metricName: string, period: Duration, label?: string): cloudwatch.Metric {
  return new cloudwatch.Metric({ namespace, metricName, statistic: cloudwatch.Stats.MAXIMUM, period, ...(label ? { label } : {}) });
}

/**
 * The limiter's alarms, created through `alarm` (which adds the ops topic and missing-data
 * handling): the fallback being active (only with a table to fall back from) and the daily cap
 * nearly used up (only with a daily cap).
 */
export function limitAlarms(
  config: DeploymentConfig,
  alarm: (id: string, props: cloudwatch.AlarmProps) => cloudwatch.Alarm,
  period: Duration,
): void {
  const { stage, metricsNamespace: namespace } = config;
  const { limits } = config.mcpServer;
  if (limits.table) {
    alarm('LimiterFallbackAlarm', {
      alarmName: alarmName(stage, 'limiter-fallback'),
      alarmDescription:
        'An mcp-server instance could not reach the limits table and counts in memory: limits hold per instance only, ' +
        'so N concurrent instances may let N times a limit through. Check DynamoDB errors and throttles on the table.',
      metric: limiterMetric(namespace, LIMITER_METRICS.fallback, period),
      threshold: 1,
      evaluationPeriods: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
    });
  }
  if (limits.dailyCalls > 0) {
    const pct = config.alarms.dailyCallsUsedPct;
    alarm('DailyCallsUsedAlarm', {
      alarmName: alarmName(stage, 'daily-calls-used'),
      alarmDescription:
        `${pct} % or more of today's ${limits.dailyCalls} tool calls (UTC day) are used: at 100 % every tool call is refused ` +
        'until midnight UTC. Look for a caller in a loop (queries/limits-hit.insights), or raise mcpServer.limits.dailyCalls.',
      metric: limiterMetric(namespace, LIMITER_METRICS.dailyCallsUsedPct, period),
      threshold: pct,
      evaluationPeriods: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
    });
  }
}
