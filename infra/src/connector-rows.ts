// One dashboard row per connector, read from the catalogs at synth time, so a new catalog gets
// its row without a line of infra code: calls and failed calls, failed calls by status, latency
// p50/p95 with the latency alarms' threshold, and the quota used with the days left where
// quota-alarm watches the connector. The EMF block on the audit line has no status dimension,
// so the failures by status come from a metric filter on the audit log (`ToolFailures`).
import { Duration } from 'aws-cdk-lib';
import * as cw from 'aws-cdk-lib/aws-cloudwatch';
import * as logs from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import type { ConnectorCatalog } from './catalogs.ts';
import { EMF } from './emf.ts';
import { QUOTA_DIMENSION, QUOTA_METRICS, PERIOD_SECONDS as QUOTA_PERIOD_SECONDS, type QuotaAlarmPlan } from './quota-alarms.ts';

/** Metric-filter metric (deployment namespace): failed tool calls, dimensions from the line. */
export const TOOL_FAILURES_METRIC = { name: 'ToolFailures', dimensions: ['connector', 'status'] } as const;

/** Statuses of calls that did not fail, as the digest's queries and the `errors` EMF metric see them. */
export const NOT_FAILED_STATUSES = ['ok', 'confirmation_required', 'pending'] as const;

/**
 * Counts failed tool calls per connector and status. A line without a connector (a call of an
 * unknown tool) is no connector's failure and is left to the digest's missing capabilities.
 */
export function toolFailuresFilter(scope: Construct, logGroup: logs.ILogGroup, namespace: string): logs.MetricFilter {
  const [connector, status] = TOOL_FAILURES_METRIC.dimensions;
  return new logs.MetricFilter(scope, 'ToolFailuresFilter', {
    logGroup,
    filterPattern: logs.FilterPattern.all(
      logs.FilterPattern.any(
        logs.FilterPattern.stringValue('$.event', '=', 'tool_call'),
        logs.FilterPattern.stringValue('$.event', '=', 'tool_error'),
      ),
      logs.FilterPattern.exists(`$.${connector}`),
      logs.FilterPattern.exists(`$.${status}`),
      ...NOT_FAILED_STATUSES.map((s) => logs.FilterPattern.stringValue(`$.${status}`, '!=', s)),
    ),
    metricNamespace: namespace,
    metricName: TOOL_FAILURES_METRIC.name,
    metricValue: '1',
    dimensions: { [connector]: `$.${connector}`, [status]: `$.${status}` },
    unit: cw.Unit.COUNT,
  });
}

/** `SEARCH` over the statuses of one connector's failures: statuses need no list. */
export function failuresByStatusSearch(namespace: string, connector: string, period: Duration): string {
  const [c, s] = TOOL_FAILURES_METRIC.dimensions;
  return `SEARCH('{"${namespace}",${c},${s}} MetricName="${TOOL_FAILURES_METRIC.name}" ${c}="${connector}"', 'Sum', ${period.toSeconds()})`;
}

export interface ConnectorRowProps {
  readonly namespace: string;
  readonly catalogs: readonly ConnectorCatalog[];
  readonly quotaAlarmPlan: QuotaAlarmPlan;
  /** The latency alarms' threshold, drawn on each latency graph. */
  readonly toolLatencyP95Ms: number;
  readonly period: Duration;
}

/** The title of a connector's row, a full-width line above its graphs. */
export function connectorHeading(c: ConnectorCatalog): string {
  return `## ${c.connector}\nCatalog \`shared/connector/catalogs/${c.file}\``;
}

/** A connector's row: a full-width heading, then four widgets side by side. */
export interface ConnectorRow {
  readonly connector: string;
  readonly heading: cw.TextWidget;
  readonly widgets: readonly cw.IWidget[];
}

/** One row per catalog, in catalog order. */
export function connectorRows(p: ConnectorRowProps): ConnectorRow[] {
  return p.catalogs.map((c) => ({
    connector: c.connector,
    heading: new cw.TextWidget({ markdown: connectorHeading(c), width: 24, height: 2 }),
    widgets: [callsGraph(p, c.connector), failuresGraph(p, c.connector), latencyGraph(p, c.connector), quotaWidget(p, c.connector)],
  }));
}

const WIDTH = 6;
const HEIGHT = 6;

function emf(p: ConnectorRowProps, metricName: string, connector: string, statistic: string, label: string): cw.Metric {
  return new cw.Metric({ namespace: p.namespace, metricName, dimensionsMap: { [EMF.connector]: connector }, statistic, period: p.period, label });
}

function callsGraph(p: ConnectorRowProps, c: string): cw.GraphWidget {
  return new cw.GraphWidget({
    title: `${c}: calls and failed calls`,
    left: [emf(p, EMF.calls, c, 'Sum', 'calls'), emf(p, EMF.errors, c, 'Sum', 'failed')],
    leftYAxis: { min: 0 },
    width: WIDTH,
    height: HEIGHT,
  });
}

function failuresGraph(p: ConnectorRowProps, c: string): cw.GraphWidget {
  return new cw.GraphWidget({
    title: `${c}: failed calls by status`,
    left: [new cw.MathExpression({ expression: failuresByStatusSearch(p.namespace, c, p.period), label: '', period: p.period })],
    leftYAxis: { min: 0 },
    width: WIDTH,
    height: HEIGHT,
  });
}

function latencyGraph(p: ConnectorRowProps, c: string): cw.GraphWidget {
  return new cw.GraphWidget({
    title: `${c}: latency p50 / p95 (ms)`,
    left: [emf(p, EMF.durationMs, c, 'p50', 'p50'), emf(p, EMF.durationMs, c, 'p95', 'p95')],
    leftYAxis: { min: 0 },
    leftAnnotations: [{ value: p.toolLatencyP95Ms, label: `alarm: p95 > ${p.toolLatencyP95Ms} ms` }],
    width: WIDTH,
    height: HEIGHT,
  });
}

/** Quota used with its alarms' thresholds and the forecast, or why quota-alarm does not watch it. */
function quotaWidget(p: ConnectorRowProps, c: string): cw.IWidget {
  const alarms = p.quotaAlarmPlan.alarms.filter((a) => a.connector === c);
  const used = alarms.filter((a) => a.metricName === QUOTA_METRICS.utilizationPercent);
  if (used.length === 0) {
    const why = p.quotaAlarmPlan.skipped.find((s) => s.connector === c)?.reason ?? 'no quota alarms';
    return new cw.TextWidget({ markdown: `### ${c}: quota\nNot watched: ${why}.`, width: WIDTH, height: HEIGHT });
  }
  const quota = (metricName: string, statistic: string, label: string): cw.Metric =>
    new cw.Metric({ namespace: p.namespace, metricName, dimensionsMap: { [QUOTA_DIMENSION]: c }, statistic, period: Duration.seconds(QUOTA_PERIOD_SECONDS), label });
  const forecast = alarms.some((a) => a.metricName === QUOTA_METRICS.exhaustedBeforeWindowEnd);
  return new cw.GraphWidget({
    title: `${c}: quota used (%)${forecast ? ', days left' : ''}`,
    left: [quota(QUOTA_METRICS.utilizationPercent, 'Maximum', 'used %')],
    leftYAxis: { min: 0, max: 100 },
    leftAnnotations: [...new Set(used.map((a) => a.threshold))].map((v) => ({ value: v, label: `${v} %` })),
    ...(forecast ? { right: [quota(QUOTA_METRICS.forecastDaysLeft, 'Minimum', 'days left')], rightYAxis: { min: 0 } } : {}),
    width: WIDTH,
    height: HEIGHT,
  });
}
