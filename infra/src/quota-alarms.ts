// Quota alarm plans in the format of `quota-alarm alarms --json` (functions/quota-alarm/src/
// alarms.rs, `AlarmPlan`): plain data from a swappable source. `quotaAlarmsFromCommand` runs
// the binary; `quotaAlarmsFromCatalogs` derives the same plan from the catalog files in
// TypeScript (no Rust build needed at synth), and a test compares the two whenever a
// current quota-alarm binary is at hand.
import { execFileSync } from 'node:child_process';
import type { ConnectorCatalog, ConnectorQuota } from './catalogs.ts';

/** The EMF metrics quota-alarm publishes (functions/quota-alarm/src/emf.rs), dimension `Connector`. */
export const QUOTA_METRICS = {
  utilizationPercent: 'QuotaUtilizationPercent',
  forecastDaysLeft: 'QuotaForecastDaysLeft',
  /** 1 when the forecast runs out before the window resets, else 0. */
  exhaustedBeforeWindowEnd: 'QuotaExhaustedBeforeWindowEnd',
} as const;
export const QUOTA_DIMENSION = 'Connector';

/** quota-alarm runs every 15 minutes: one datapoint per period. */
export const PERIOD_SECONDS = 900;
/** The forecast must hold for an hour before it notifies: one burst should not. */
export const FORECAST_EVALUATION_PERIODS = 4;
/** quota-alarm's defaults when a quota lists no thresholds (one listed: it warns, 100 pages). */
export const DEFAULT_WARN_PERCENT = 80;
export const DEFAULT_CRITICAL_PERCENT = 95;

export interface QuotaAlarmSpec {
  /** Stable construct id: `quota-<connector>-<warn|critical|forecast>`. */
  readonly id: string;
  readonly connector: string;
  readonly severity: 'warn' | 'critical';
  readonly description: string;
  readonly namespace: string;
  readonly metricName: string;
  readonly dimensions: readonly { readonly name: string; readonly value: string }[];
  readonly statistic: 'Maximum' | 'Minimum' | 'Average' | 'Sum';
  readonly periodSeconds: number;
  readonly evaluationPeriods: number;
  readonly datapointsToAlarm: number;
  readonly threshold: number;
  readonly comparisonOperator:
    | 'GreaterThanOrEqualToThreshold'
    | 'GreaterThanThreshold'
    | 'LessThanThreshold'
    | 'LessThanOrEqualToThreshold';
  readonly treatMissingData: 'missing' | 'notBreaching' | 'breaching' | 'ignore';
}

export interface QuotaAlarmPlan {
  readonly namespace: string;
  readonly alarms: readonly QuotaAlarmSpec[];
  /** Connectors without alarms, and why (no quota, nothing measurable, no window). */
  readonly skipped: readonly { readonly connector: string; readonly reason: string }[];
}

/** Anything that yields the plan for a metrics namespace: the catalogs now, the binary later. */
export type QuotaAlarmSource = (namespace: string) => QuotaAlarmPlan;

/** `month Europe/Berlin`, `day UTC`, `rolling 24 h`, as quota-alarm describes windows. */
function describeWindow(w: Readonly<Record<string, unknown>>): string {
  if (typeof w.calendar_month === 'string') return `month ${w.calendar_month}`;
  if (typeof w.day === 'string') return `day ${w.day}`;
  if (typeof w.rolling_hours === 'number') return `rolling ${w.rolling_hours} h`;
  return JSON.stringify(w);
}

function percents(q: ConnectorQuota): [number, number] {
  const t = q.thresholds;
  if (t.length > 1) return [Math.min(...t), Math.max(...t)];
  if (t.length === 1) return [t[0]!, 100];
  return [DEFAULT_WARN_PERCENT, DEFAULT_CRITICAL_PERCENT];
}

/** The plan quota-alarm's `alarms::plan` makes, computed from the catalog files. */
export function quotaAlarmsFromCatalogs(catalogs: readonly ConnectorCatalog[]): QuotaAlarmSource {
  return (namespace) => {
    const alarms: QuotaAlarmSpec[] = [];
    const skipped: { connector: string; reason: string }[] = [];
    for (const c of catalogs) {
      const q = c.quota;
      if (!q) skipped.push({ connector: c.connector, reason: 'no quota declared' });
      else if (!q.remaining && !q.consumed && !q.headers && !q.body) skipped.push({ connector: c.connector, reason: 'the quota names no remaining or consumed header, header family or body figure' });
      else if (!q.window) skipped.push({ connector: c.connector, reason: 'the quota declares no window' });
      else {
        const window = describeWindow(q.window);
        const [warn, critical] = percents(q);
        const spec = (kind: string, severity: 'warn' | 'critical', metricName: string, threshold: number, periods: number, description: string): QuotaAlarmSpec => ({
          id: `quota-${c.connector}-${kind}`,
          connector: c.connector,
          severity,
          description,
          namespace,
          metricName,
          dimensions: [{ name: QUOTA_DIMENSION, value: c.connector }],
          statistic: 'Maximum',
          periodSeconds: PERIOD_SECONDS,
          evaluationPeriods: periods,
          datapointsToAlarm: periods,
          threshold,
          comparisonOperator: 'GreaterThanOrEqualToThreshold',
          treatMissingData: 'missing',
        });
        // A balance (prepaid credits) is no window's allowance: said so, and nothing forecast.
        const used = (percent: number): string => (q.balance
          ? `${c.connector}: the balance is down to ${100 - percent} % of the limit (${window})`
          : `${c.connector}: ${percent} % of the API quota (${window}) used`);
        alarms.push(
          spec('warn', 'warn', QUOTA_METRICS.utilizationPercent, warn, 1, used(warn)),
          spec('critical', 'critical', QUOTA_METRICS.utilizationPercent, critical, 1, `${used(critical)}; calls fail when it runs out`),
        );
        if (!q.balance) {
          alarms.push(spec('forecast', 'warn', QUOTA_METRICS.exhaustedBeforeWindowEnd, 1, FORECAST_EVALUATION_PERIODS, `${c.connector}: at the current burn rate the API quota runs out before the window (${window}) resets`));
        }
      }
    }
    return { namespace, alarms, skipped };
  };
}

/** `<binary> alarms --json --namespace <ns>`, e.g. `target/debug/quota-alarm`. */
export function quotaAlarmsFromCommand(binary: string, extraArgs: readonly string[] = []): QuotaAlarmSource {
  return (namespace) => {
    const args = [...extraArgs, 'alarms', '--json', '--namespace', namespace];
    const out = execFileSync(binary, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
    return parseQuotaAlarmPlan(JSON.parse(out), [binary, ...args].join(' '));
  };
}

const STATISTICS = ['Maximum', 'Minimum', 'Average', 'Sum'] as const;
const COMPARISONS = ['GreaterThanOrEqualToThreshold', 'GreaterThanThreshold', 'LessThanThreshold', 'LessThanOrEqualToThreshold'] as const;
const MISSING = ['missing', 'notBreaching', 'breaching', 'ignore'] as const;

/** Checks a decoded `alarms --json` document; errors name the entry and field. */
export function parseQuotaAlarmPlan(value: unknown, source: string): QuotaAlarmPlan {
  const doc = value as Record<string, unknown>;
  if (typeof doc !== 'object' || doc === null || !Array.isArray(doc.alarms) || typeof doc.namespace !== 'string') {
    throw new Error(`${source}: expected { namespace, alarms: [...], skipped: [...] }`);
  }
  const ids = new Set<string>();
  const alarms = doc.alarms.map((v, i): QuotaAlarmSpec => {
    const at = `${source}: alarms[${i}]`;
    const s = (v ?? {}) as Record<string, unknown>;
    const str = (k: string): string => {
      if (typeof s[k] !== 'string' || s[k] === '') throw new Error(`${at}.${k}: expected a string`);
      return s[k] as string;
    };
    const num = (k: string, min: number): number => {
      if (typeof s[k] !== 'number' || !Number.isFinite(s[k]) || (s[k] as number) < min) throw new Error(`${at}.${k}: expected a number >= ${min}`);
      return s[k] as number;
    };
    const oneOf = <T extends string>(k: string, allowed: readonly T[]): T => {
      const x = str(k);
      if (!allowed.includes(x as T)) throw new Error(`${at}.${k}: expected one of ${allowed.join(', ')}, got ${x}`);
      return x as T;
    };
    const id = str('id');
    if (!/^[A-Za-z0-9_-]+$/.test(id)) throw new Error(`${at}.id: letters, digits, - and _ only`);
    if (ids.has(id)) throw new Error(`${at}.id: \`${id}\` appears twice`);
    ids.add(id);
    const dims = s.dimensions;
    if (!Array.isArray(dims) || !dims.every((d) => typeof d?.name === 'string' && typeof d?.value === 'string')) {
      throw new Error(`${at}.dimensions: expected [{ name, value }] strings`);
    }
    const periodSeconds = num('periodSeconds', 10);
    if (periodSeconds % 60 !== 0 && periodSeconds !== 10 && periodSeconds !== 30) throw new Error(`${at}.periodSeconds: 10, 30 or a multiple of 60`);
    const evaluationPeriods = num('evaluationPeriods', 1);
    const datapointsToAlarm = num('datapointsToAlarm', 1);
    if (datapointsToAlarm > evaluationPeriods) throw new Error(`${at}.datapointsToAlarm: more than evaluationPeriods`);
    return {
      id,
      connector: str('connector'),
      severity: oneOf('severity', ['warn', 'critical'] as const),
      description: str('description'),
      namespace: str('namespace'),
      metricName: str('metricName'),
      dimensions: dims.map((d) => ({ name: d.name as string, value: d.value as string })),
      statistic: oneOf('statistic', STATISTICS),
      periodSeconds,
      evaluationPeriods,
      datapointsToAlarm,
      threshold: num('threshold', Number.NEGATIVE_INFINITY),
      comparisonOperator: oneOf('comparisonOperator', COMPARISONS),
      treatMissingData: oneOf('treatMissingData', MISSING),
    };
  });
  const skipped = Array.isArray(doc.skipped)
    ? doc.skipped.map((x, i) => {
        const s = x as Record<string, unknown>;
        if (typeof s?.connector !== 'string' || typeof s?.reason !== 'string') throw new Error(`${source}: skipped[${i}]: expected { connector, reason }`);
        return { connector: s.connector, reason: s.reason };
      })
    : [];
  return { namespace: doc.namespace, alarms, skipped };
}
