// Latency per tool on the infra side (issue 15): the p95 of the EMF `duration_ms` per connector
// that mcp-server publishes on its tool_call/tool_error audit lines (shared/audit/src/emf.rs),
// an alarm on it per catalog connector, and the query behind the dashboard's per-tool table
// (and the digest's "Latency per tool" section).
import type { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type { ConnectorCatalog } from './catalogs.ts';
import type { DeploymentConfig } from './config.ts';
import { alarmName } from './names.ts';

/** The `queries/` file with p50/p95/p99 of `duration_ms` per tool. */
export const TOOL_LATENCY_QUERY = 'tool-latency';

/** EMF metric and dimension (shared/audit: `DURATION_MS`, the `CONNECTOR` dimension set). */
export const LATENCY_METRIC = { name: 'duration_ms', dimension: 'connector' } as const;

/** A connector's tool-call duration p95, milliseconds. */
export function connectorP95(namespace: string, connector: string, period: Duration, label?: string): cloudwatch.Metric {
  return new cloudwatch.Metric({
    namespace,
    metricName: LATENCY_METRIC.name,
    dimensionsMap: { [LATENCY_METRIC.dimension]: connector },
    statistic: cloudwatch.Stats.p(95),
    period,
    ...(label ? { label } : {}),
  });
}

/** `tool-latency-p95-papierkram`. */
export function latencyAlarmName(stage: string, connector: string): string {
  return alarmName(stage, `tool-latency-p95-${connector}`);
}

/**
 * One alarm per catalog connector: its tool calls' p95 above `alarms.toolLatencyP95Ms` in 2 of 3
 * five-minute periods (one slow burst does not page). Missing data is OK (no calls, no line).
 */
export function latencyAlarms(
  config: DeploymentConfig,
  catalogs: readonly ConnectorCatalog[],
  alarm: (id: string, props: cloudwatch.AlarmProps) => cloudwatch.Alarm,
  period: Duration,
): void {
  const threshold = config.alarms.toolLatencyP95Ms;
  for (const { connector } of catalogs) {
    alarm(`ToolLatencyP95Alarm-${connector}`, {
      alarmName: latencyAlarmName(config.stage, connector),
      alarmDescription:
        `${connector} tool calls: p95 duration above ${threshold} ms in 2 of 3 five-minute periods. The upstream is slow ` +
        `or a tool asks for too much: queries/${TOOL_LATENCY_QUERY}.insights on the audit log names the tool; ` +
        'raise alarms.toolLatencyP95Ms if this is the normal pace.',
      metric: connectorP95(config.metricsNamespace, connector, period),
      threshold,
      evaluationPeriods: 3,
      datapointsToAlarm: 2,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
    });
  }
}
