// Upstream rate limits on the infra side (issue 21): a quota with a window gets quota-alarm's
// utilisation alarms, but a per-minute limit (Cal.com's buckets) or an upstream that documents
// none (sevdesk) has nothing to forecast. What every connector has is the audit line of a call
// the upstream refused with HTTP 429 (`status` `rate_limited`, `http_status` 429; the server's
// own limits answer `rate_limited` without an upstream status). This counts those per connector
// with a metric filter and alarms on each catalog connector.
import type { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as logs from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import type { ConnectorCatalog } from './catalogs.ts';
import type { DeploymentConfig } from './config.ts';
import { alarmName } from './names.ts';

/** Metric-filter metric (in the deployment's metrics namespace), dimension `connector` from the line. */
export const UPSTREAM_RATE_LIMITED_METRIC = { name: 'UpstreamRateLimited', dimension: 'connector' } as const;

/** Counts audit lines of calls an upstream refused with 429, per connector. */
export function upstreamRateLimitedFilter(scope: Construct, logGroup: logs.ILogGroup, namespace: string): logs.MetricFilter {
  return new logs.MetricFilter(scope, 'UpstreamRateLimitedFilter', {
    logGroup,
    filterPattern: logs.FilterPattern.all(
      logs.FilterPattern.stringValue('$.status', '=', 'rate_limited'),
      logs.FilterPattern.numberValue('$.http_status', '=', 429),
    ),
    metricNamespace: namespace,
    metricName: UPSTREAM_RATE_LIMITED_METRIC.name,
    metricValue: '1',
    dimensions: { [UPSTREAM_RATE_LIMITED_METRIC.dimension]: '$.connector' },
    unit: cloudwatch.Unit.COUNT,
  });
}

/** `upstream-rate-limited-calcom`. */
export function rateLimitAlarmName(stage: string, connector: string): string {
  return alarmName(stage, `upstream-rate-limited-${connector}`);
}

/**
 * One alarm per catalog connector: `alarms.upstreamRateLimited` or more calls refused with 429 in
 * five minutes. Missing data is OK (no refusal, no line).
 */
export function rateLimitAlarms(
  config: DeploymentConfig,
  catalogs: readonly ConnectorCatalog[],
  alarm: (id: string, props: cloudwatch.AlarmProps) => cloudwatch.Alarm,
  period: Duration,
): void {
  const threshold = config.alarms.upstreamRateLimited;
  for (const { connector } of catalogs) {
    alarm(`UpstreamRateLimitedAlarm-${connector}`, {
      alarmName: rateLimitAlarmName(config.stage, connector),
      alarmDescription:
        `${threshold} or more ${connector} calls refused by the upstream with HTTP 429 in 5 minutes: its rate limit is ` +
        'reached (a model in a loop, an aggregation reading many pages, or a limit lower than the traffic). Callers got ' +
        'rate_limited with the wait; the audit log (status = "rate_limited", http_status = 429) names the tools and callers.',
      metric: new cloudwatch.Metric({
        namespace: config.metricsNamespace,
        metricName: UPSTREAM_RATE_LIMITED_METRIC.name,
        dimensionsMap: { [UPSTREAM_RATE_LIMITED_METRIC.dimension]: connector },
        statistic: cloudwatch.Stats.SUM,
        period,
      }),
      threshold,
      evaluationPeriods: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
    });
  }
}
