// The deployment dashboard: tool traffic and errors (EMF from the audit lines), Lambda and API
// health, latency, one row per catalog connector (connector-rows.ts), limits, writes, spend per
// connector that spends (from the catalogs), and one Logs Insights widget per queries/*.insights file.
import { Duration } from 'aws-cdk-lib';
import type * as apigw from 'aws-cdk-lib/aws-apigatewayv2';
import * as cw from 'aws-cdk-lib/aws-cloudwatch';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type { Construct } from 'constructs';
import type { ConnectorCatalog } from './catalogs.ts';
import { connectorRows } from './connector-rows.ts';
import { EMF } from './emf.ts';
import { dashboardName } from './names.ts';
import { TOOL_LATENCY_QUERY, connectorP95 } from './latency.ts';
import { LIMITER_METRICS, LIMITS_HIT_QUERY, limiterMetric } from './limits.ts';
import type { InsightsQuery } from './queries.ts';
import type { QuotaAlarmPlan } from './quota-alarms.ts';

/** The EMF names live in emf.ts (connector-rows.ts uses them too); tests import them from here. */
export { EMF };

const PERIOD = Duration.minutes(5);

/** The `queries/` file of the dashboard's writes row (and the digest's "Writes" section). */
export const WRITES_QUERY = 'writes';

/** Beside the writes table: what its columns mean and what to do about `outcome_unknown`. */
export const WRITES_NOTE = [
  '### Writes per tool',
  'One column per way a write call ended (`queries/writes.insights`).',
  '',
  '- **outcome_unknown**: sent, its answer never recorded. Check with the tool\'s get or list tool whether it happened before anyone retries.',
  '- **asked**: a confirmation was requested (no failure); **declined**: a person said no; **refused**: a confirmation token did not match; **needs_person**: a critical write without a confirmation form.',
  '- **replayed**: answered from the idempotency ledger, not run again; **conflicts**: a key reused with other arguments.',
].join('\n');

/** The `queries/` file below the spend rows (and the digest's "Spend" section). */
export const SPEND_QUERY = 'spend';

/** What a spend row sums: an hour of a connector's `spend` EMF metric. */
const SPEND_PERIOD = Duration.hours(1);

/** `SEARCH` over every tool of one connector: its tools' spend, tools added without a redeploy. */
export function connectorToolSearch(namespace: string, metric: string, connector: string, period: Duration): string {
  return `SEARCH('{"${namespace}",${EMF.connector},${EMF.tool}} MetricName="${metric}" ${EMF.connector}="${connector}"', 'Sum', ${period.toSeconds()})`;
}

export interface DashboardProps {
  readonly stage: string;
  readonly namespace: string;
  readonly fn: lambda.IFunction;
  readonly api: apigw.HttpApi;
  readonly auditLogGroupName: string;
  readonly catalogs: readonly ConnectorCatalog[];
  readonly queries: readonly InsightsQuery[];
  readonly quotaAlarmPlan: QuotaAlarmPlan;
  readonly coldStarts: cw.IMetric;
  readonly initDuration: cw.IMetric;
  readonly authDenied: cw.IMetric;
  readonly mcpUrl: string;
  /** The threshold of the daily-cap alarm, drawn on its graph. */
  readonly dailyCallsUsedPct: number;
  /** The threshold of the per-connector latency alarms, drawn on their graph. */
  readonly toolLatencyP95Ms: number;
}

/** `SEARCH` over every tool of every connector: tools come and go without a redeploy. */
export function perToolSearch(namespace: string, metric: string): string {
  return `SEARCH('{"${namespace}",${EMF.connector},${EMF.tool}} MetricName="${metric}"', 'Sum', ${PERIOD.toSeconds()})`;
}

export function buildDashboard(scope: Construct, p: DashboardProps): cw.Dashboard {
  const dashboard = new cw.Dashboard(scope, 'Dashboard', {
    dashboardName: dashboardName(p.stage),
    defaultInterval: Duration.days(1),
  });
  const connectors = p.catalogs.map((c) => c.connector);
  const emf = (metricName: string, connector: string, statistic: string): cw.Metric =>
    new cw.Metric({
      namespace: p.namespace,
      metricName,
      dimensionsMap: { [EMF.connector]: connector },
      statistic,
      period: PERIOD,
      label: `${connector} ${statistic === 'Sum' ? metricName : statistic}`,
    });

  dashboard.addWidgets(
    new cw.TextWidget({
      markdown: `# hosted-mcp ${p.stage}\nMCP endpoint: \`${p.mcpUrl}\` · audit log: \`${p.auditLogGroupName}\``,
      width: 24,
      height: 2,
    }),
  );

  // Tool traffic.
  dashboard.addWidgets(
    new cw.GraphWidget({
      title: 'Tool calls per tool',
      left: [new cw.MathExpression({ expression: perToolSearch(p.namespace, EMF.calls), label: '', period: PERIOD })],
      width: 8,
    }),
    new cw.GraphWidget({
      title: 'Tool errors per tool',
      left: [new cw.MathExpression({ expression: perToolSearch(p.namespace, EMF.errors), label: '', period: PERIOD })],
      width: 8,
    }),
    new cw.GraphWidget({
      title: 'Error rate per connector (%)',
      left: connectors.map(
        (c, i) =>
          new cw.MathExpression({
            expression: `IF(calls${i} > 0, 100 * errors${i} / calls${i}, 0)`,
            usingMetrics: { [`calls${i}`]: emf(EMF.calls, c, 'Sum'), [`errors${i}`]: emf(EMF.errors, c, 'Sum') },
            label: c,
            period: PERIOD,
          }),
      ),
      leftYAxis: { min: 0, max: 100 },
      width: 8,
    }),
  );

  // Lambda.
  dashboard.addWidgets(
    new cw.GraphWidget({
      title: 'Cold starts and init duration',
      left: [withLabel(p.coldStarts, 'cold starts')],
      right: [withLabel(p.initDuration, 'init duration p95 (ms)')],
      width: 12,
    }),
    new cw.GraphWidget({
      title: 'Lambda errors and throttles',
      left: [
        p.fn.metricErrors({ period: PERIOD, statistic: 'Sum', label: 'errors' }),
        p.fn.metricThrottles({ period: PERIOD, statistic: 'Sum', label: 'throttles' }),
      ],
      right: [p.fn.metric('ConcurrentExecutions', { period: PERIOD, statistic: 'Maximum', label: 'concurrency (max)' })],
      width: 12,
    }),
  );

  // Latency per tool: the p95 per connector the latency alarms watch, with their threshold, and
  // p50/p95/p99 per tool from the audit log (what the digest reports).
  const queryWidget = (q: InsightsQuery, width: number): cw.LogQueryWidget =>
    new cw.LogQueryWidget({
      title: `${q.name} (queries/${q.name}.insights)`,
      logGroupNames: [p.auditLogGroupName],
      queryString: q.text,
      width,
      height: 8,
    });
  const toolLatency = p.queries.find((q) => q.name === TOOL_LATENCY_QUERY);
  dashboard.addWidgets(
    new cw.GraphWidget({
      title: 'Tool latency p95 per connector (ms), alarm threshold',
      left: connectors.map((c) => connectorP95(p.namespace, c, PERIOD, `${c} p95`)),
      leftYAxis: { min: 0 },
      leftAnnotations: [{ value: p.toolLatencyP95Ms, label: `alarm: p95 > ${p.toolLatencyP95Ms} ms` }],
      width: 12,
      height: 8,
    }),
    ...(toolLatency ? [queryWidget(toolLatency, 12)] : []),
  );

  // One row per catalog connector: calls and failures, failures by status, latency, quota.
  for (const row of connectorRows({
    namespace: p.namespace,
    catalogs: p.catalogs,
    quotaAlarmPlan: p.quotaAlarmPlan,
    toolLatencyP95Ms: p.toolLatencyP95Ms,
    period: PERIOD,
  })) {
    dashboard.addWidgets(row.heading);
    dashboard.addWidgets(...row.widgets);
  }

  // API.
  dashboard.addWidgets(
    new cw.GraphWidget({
      title: 'HTTP API requests, 4xx, 5xx',
      left: [p.api.metricCount({ period: PERIOD, label: 'requests' })],
      right: [
        p.api.metricClientError({ period: PERIOD, label: '4xx' }),
        p.api.metricServerError({ period: PERIOD, label: '5xx' }),
      ],
      width: 12,
    }),
    new cw.GraphWidget({
      title: 'auth_denied and API latency',
      left: [withLabel(p.authDenied, 'auth_denied')],
      right: [p.api.metricLatency({ period: PERIOD, statistic: 'p95', label: 'API latency p95 (ms)' })],
      width: 12,
    }),
  );

  // Limits: the limiter's own metrics (one line a minute per instance, no dimensions) and the
  // requests and calls it refused, from the audit log.
  const limitsHit = p.queries.find((q) => q.name === LIMITS_HIT_QUERY);
  dashboard.addWidgets(
    new cw.GraphWidget({
      title: 'Limiter fallback (1: an instance counts in memory)',
      left: [limiterMetric(p.namespace, LIMITER_METRICS.fallback, PERIOD, 'limiter_fallback (max)')],
      leftYAxis: { min: 0, max: 1 },
      width: 6,
      height: 8,
    }),
    new cw.GraphWidget({
      title: 'Daily tool-call cap used (%)',
      left: [limiterMetric(p.namespace, LIMITER_METRICS.dailyCallsUsedPct, PERIOD, 'daily_calls_used_pct (max)')],
      leftYAxis: { min: 0, max: 100 },
      leftAnnotations: [{ value: p.dailyCallsUsedPct, label: `${p.dailyCallsUsedPct} %` }],
      width: 6,
      height: 8,
    }),
    ...(limitsHit ? [queryWidget(limitsHit, 12)] : []),
  );

  // Writes: what ran, was previewed, confirmed, refused or replayed, and the unknown outcomes
  // someone must check, per tool from the audit log, with what the columns mean.
  const writes = p.queries.find((q) => q.name === WRITES_QUERY);
  if (writes) {
    dashboard.addWidgets(new cw.TextWidget({ markdown: WRITES_NOTE, width: 6, height: 8 }), queryWidget(writes, 18));
  }

  // Spend: one row per connector whose catalog declares a spend limit, in its own unit, the
  // connector's sum and its tools'; then the week's spend per tool from the audit log.
  for (const c of p.catalogs) {
    if (!c.spend) continue;
    const { unit, limit } = c.spend;
    dashboard.addWidgets(
      new cw.GraphWidget({
        title: `${c.connector} spend (${unit} per hour; each caller at most ${limit} a day)`,
        left: [
          new cw.Metric({
            namespace: p.namespace,
            metricName: EMF.spend,
            dimensionsMap: { [EMF.connector]: c.connector },
            statistic: 'Sum',
            period: SPEND_PERIOD,
            label: `${c.connector} ${unit}`,
          }),
        ],
        leftYAxis: { min: 0 },
        width: 8,
      }),
      new cw.GraphWidget({
        title: `${c.connector} spend per tool (${unit} per hour)`,
        left: [
          new cw.MathExpression({
            expression: connectorToolSearch(p.namespace, EMF.spend, c.connector, SPEND_PERIOD),
            label: '',
            period: SPEND_PERIOD,
          }),
        ],
        leftYAxis: { min: 0 },
        width: 16,
      }),
    );
  }
  const spend = p.queries.find((q) => q.name === SPEND_QUERY);
  if (spend) dashboard.addWidgets(queryWidget(spend, 24));

  // The digest's own queries, text unchanged (tool-latency, limits-hit, writes and spend sit in
  // their rows above).
  for (const q of p.queries) {
    if (q !== limitsHit && q !== toolLatency && q !== writes && q !== spend) dashboard.addWidgets(queryWidget(q, 24));
  }
  return dashboard;
}

function withLabel(metric: cw.IMetric, label: string): cw.IMetric {
  return metric instanceof cw.Metric ? metric.with({ label, period: PERIOD }) : metric;
}
