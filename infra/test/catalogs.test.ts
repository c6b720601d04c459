// What infra reads from the catalogs, and the quota alarm specs derived from them (the source the
// `quota-alarm alarms --json` command will replace).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseCatalog, readCatalogs } from '../src/catalogs.ts';
import { CATALOG_DIR } from '../src/paths.ts';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import {
  type QuotaAlarmPlan,
  parseQuotaAlarmPlan,
  quotaAlarmsFromCatalogs,
  quotaAlarmsFromCommand,
} from '../src/quota-alarms.ts';
import { REPO_ROOT } from '../src/paths.ts';
import { tempDir, writeFiles } from './helpers.ts';

describe('catalogs', () => {
  it('reads the shipped catalogs: papierkram with limit 10000 and thresholds [80, 95]', () => {
    const catalogs = readCatalogs(CATALOG_DIR);
    const p = catalogs.find((c) => c.connector === 'papierkram');
    assert.ok(p);
    assert.equal(p.file, 'papierkram.yaml');
    assert.equal(p.quota?.limit, 10000);
    assert.deepEqual(p.quota?.thresholds, [80, 95]);
    assert.deepEqual(p.quota?.window, { calendar_month: 'Europe/Berlin' });
  });

  it('keeps the quota headers and window as declared', () => {
    const q = parseCatalog('connector: x\nquota: { consumed: x-used, window: { rolling_hours: 24 } }\n', 'x.yaml').quota;
    assert.deepEqual(q, { window: { rolling_hours: 24 }, thresholds: [], consumed: 'x-used' });
  });

  it('reads a spend limit in its unit; Replicate counts predictions', () => {
    assert.deepEqual(parseCatalog('connector: x\nquota: { caller_daily_spend: { unit: credits, limit: 500 } }\n', 'x.yaml').spend, { unit: 'credits', limit: 500 });
    assert.deepEqual(readCatalogs(CATALOG_DIR).find((c) => c.connector === 'replicate')?.spend, { unit: 'predictions', limit: 50 });
    assert.equal(parseCatalog('connector: x\n', 'x.yaml').spend, undefined);
    assert.throws(() => parseCatalog('connector: x\nquota: { caller_daily_spend: { unit: Credits, limit: 5 } }\n', 'g.yaml'), /g\.yaml: quota\.caller_daily_spend/);
    assert.throws(() => parseCatalog('connector: x\nquota: { caller_daily_spend: { unit: credits, limit: 0 } }\n', 'h.yaml'), /h\.yaml: quota\.caller_daily_spend/);
  });

  it('a catalog without a quota has none', () => {
    assert.equal(parseCatalog('connector: x\n', 'x.yaml').quota, undefined);
  });

  it('rejects what infra cannot use, naming the file', () => {
    assert.throws(() => parseCatalog('title: x\n', 'a.yaml'), /a\.yaml: no `connector:`/);
    assert.throws(() => parseCatalog('connector: my-crm\n', 'b.yaml'), /b\.yaml: connector `my-crm`: not usable in an environment variable name/);
    assert.throws(() => parseCatalog('connector: x\nquota: { limit: 0 }\n', 'c.yaml'), /c\.yaml: quota\.limit/);
    assert.throws(() => parseCatalog('connector: x\nquota: { limit: 5, thresholds: [0, 80] }\n', 'd.yaml'), /d\.yaml: quota\.thresholds/);
    assert.throws(() => parseCatalog('connector: x\nquota: { limit: 5, thresholds: [101] }\n', 'e.yaml'), /e\.yaml: quota\.thresholds/);
    assert.throws(() => parseCatalog('connector: x\nquota: { window: monthly }\n', 'f.yaml'), /f\.yaml: quota\.window/);
  });

  it('rejects two catalogs declaring the same connector', () => {
    const dir = writeFiles(tempDir('catalogs'), { 'a.yaml': 'connector: x\n', 'b.yaml': 'connector: x\n', 'notes.md': 'ignored' });
    assert.throws(() => readCatalogs(dir), /b\.yaml: connector `x` is also declared in a\.yaml/);
  });
});

const measured = (extra: string): string => `connector: x\nquota: { remaining: x-left, window: { calendar_month: Europe/Berlin }${extra} }\n`;

describe('quota alarm plan from the catalogs (what `quota-alarm alarms --json` answers)', () => {
  it('papierkram: warn at 80 %, critical at 95 %, forecast "exhausted before the window ends" held for an hour', () => {
    const plan = quotaAlarmsFromCatalogs(readCatalogs(CATALOG_DIR))('HostedMcp');
    const p = plan.alarms.filter((a) => a.connector === 'papierkram');
    assert.deepEqual(p.map((a) => [a.id, a.severity, a.metricName, a.statistic, a.comparisonOperator, a.threshold, a.periodSeconds, a.evaluationPeriods, a.datapointsToAlarm, a.treatMissingData]), [
      ['quota-papierkram-warn', 'warn', 'QuotaUtilizationPercent', 'Maximum', 'GreaterThanOrEqualToThreshold', 80, 900, 1, 1, 'missing'],
      ['quota-papierkram-critical', 'critical', 'QuotaUtilizationPercent', 'Maximum', 'GreaterThanOrEqualToThreshold', 95, 900, 1, 1, 'missing'],
      ['quota-papierkram-forecast', 'warn', 'QuotaExhaustedBeforeWindowEnd', 'Maximum', 'GreaterThanOrEqualToThreshold', 1, 900, 4, 4, 'missing'],
    ]);
    for (const a of p) {
      assert.deepEqual(a.dimensions, [{ name: 'Connector', value: 'papierkram' }]);
      assert.equal(a.namespace, 'HostedMcp');
      assert.ok(a.description.includes('month Europe/Berlin'), a.description);
    }
  });

  it('thresholds: lowest warns and highest pages; one listed pages at 100; none listed: 80 and 95', () => {
    const thresholds = (extra: string): number[] =>
      quotaAlarmsFromCatalogs([parseCatalog(measured(extra), 'x.yaml')])('N').alarms.filter((a) => a.metricName === 'QuotaUtilizationPercent').map((a) => a.threshold);
    assert.deepEqual(thresholds(', thresholds: [90, 70, 80]'), [70, 90]);
    assert.deepEqual(thresholds(', thresholds: [70]'), [70, 100]);
    assert.deepEqual(thresholds(''), [80, 95]);
  });

  it('skips connectors it cannot measure, saying why', () => {
    const plan = quotaAlarmsFromCatalogs([
      parseCatalog('connector: a\n', 'a.yaml'),
      parseCatalog('connector: b\nquota: { limit: 5, window: { day: UTC } }\n', 'b.yaml'),
      parseCatalog('connector: c\nquota: { remaining: x-left }\n', 'c.yaml'),
    ])('N');
    assert.deepEqual(plan.alarms, []);
    assert.deepEqual(plan.skipped, [
      { connector: 'a', reason: 'no quota declared' },
      { connector: 'b', reason: 'the quota names no remaining or consumed header, header family or body figure' },
      { connector: 'c', reason: 'the quota declares no window' },
    ]);
  });

  it('a rate-limit header family is measurable like a remaining header', () => {
    const plan = quotaAlarmsFromCatalogs([
      parseCatalog('connector: cal\nquota: { headers: x_ratelimit, bucket: "*", limit: 120, window: { rolling_hours: 1 } }\n', 'cal.yaml'),
    ])('N');
    assert.deepEqual(plan.skipped, []);
    assert.deepEqual(plan.alarms.map((a) => a.id), ['quota-cal-warn', 'quota-cal-critical', 'quota-cal-forecast']);
  });

  it('a body figure is measurable, and a balance gets no forecast alarm', () => {
    const plan = quotaAlarmsFromCatalogs([
      parseCatalog('connector: rw\nquota: { body: { remaining: /creditBalance, limit: /tier/max, tools: [rw_org_get] }, balance: true, window: { calendar_month: UTC } }\n', 'rw.yaml'),
    ])('N');
    assert.deepEqual(plan.skipped, []);
    assert.deepEqual(plan.alarms.map((a) => [a.id, a.threshold, a.description]), [
      ['quota-rw-warn', 80, 'rw: the balance is down to 20 % of the limit (month UTC)'],
      ['quota-rw-critical', 95, 'rw: the balance is down to 5 % of the limit (month UTC); calls fail when it runs out'],
    ]);
  });

  it('survives a JSON round trip through parseQuotaAlarmPlan', () => {
    const plan = quotaAlarmsFromCatalogs(readCatalogs(CATALOG_DIR))('HostedMcp');
    assert.deepEqual(parseQuotaAlarmPlan(JSON.parse(JSON.stringify(plan)), 'round trip'), plan);
  });
});

describe('quota alarm plan from a command', () => {
  const plan: QuotaAlarmPlan = quotaAlarmsFromCatalogs([parseCatalog(measured(''), 'x.yaml')])('HostedMcp/test');
  const spec = plan.alarms[0]!;

  it('runs `<binary> alarms --json --namespace <ns>` and reads its plan', () => {
    // A stand-in binary: prints the plan, with the namespace it was given.
    const script = `const a = process.argv.slice(1); if (a.join(' ') !== 'alarms --json --namespace HostedMcp/test') process.exit(2);
      console.log(JSON.stringify(${JSON.stringify(plan)}))`;
    assert.deepEqual(quotaAlarmsFromCommand(process.execPath, ['-e', script, '--'])('HostedMcp/test'), plan);
  });

  it('rejects malformed output, naming the entry and field', () => {
    assert.throws(() => parseQuotaAlarmPlan([], 'cmd'), /cmd: expected \{ namespace, alarms/);
    const bad = (over: Record<string, unknown>): unknown => ({ namespace: 'N', alarms: [{ ...spec, ...over }], skipped: [] });
    assert.throws(() => parseQuotaAlarmPlan(bad({ threshold: 'high' }), 'cmd'), /cmd: alarms\[0\]\.threshold: expected a number/);
    assert.throws(() => parseQuotaAlarmPlan(bad({ comparisonOperator: 'GreaterThan' }), 'cmd'), /alarms\[0\]\.comparisonOperator: expected one of/);
    assert.throws(() => parseQuotaAlarmPlan(bad({ periodSeconds: 90 }), 'cmd'), /alarms\[0\]\.periodSeconds/);
    assert.throws(() => parseQuotaAlarmPlan(bad({ datapointsToAlarm: 5, evaluationPeriods: 4 }), 'cmd'), /datapointsToAlarm/);
    assert.throws(() => parseQuotaAlarmPlan(bad({ dimensions: [{ name: 'Connector', value: 1 }] }), 'cmd'), /alarms\[0\]\.dimensions/);
    assert.throws(() => parseQuotaAlarmPlan({ namespace: 'N', alarms: [spec, spec] }, 'cmd'), /alarms\[1\]\.id: `quota-x-warn` appears twice/);
  });

  it('fails when the command fails', () => {
    assert.throws(() => quotaAlarmsFromCommand(process.execPath, ['-e', 'process.exit(3)', '--'])('N'));
  });
});

describe('the TypeScript plan equals quota-alarm\'s own', () => {
  const binary = join(REPO_ROOT, 'target', 'debug', 'quota-alarm');
  /** Newest modification time under these paths (a binary older than its sources is stale). */
  const newest = (paths: string[]): number =>
    Math.max(...paths.flatMap((p) => (statSync(p).isDirectory() ? readdirSync(p, { recursive: true }).map((f) => statSync(join(p, String(f))).mtimeMs) : [statSync(p).mtimeMs])));

  it('for the shipped catalogs (needs a current `cargo build -p quota-alarm`)', (t) => {
    if (!existsSync(binary)) {
      t.skip(`${binary} not built`);
      return;
    }
    const sources = ['functions/quota-alarm/src', 'shared/catalog/src', 'shared/connector'].map((p) => join(REPO_ROOT, p));
    if (statSync(binary).mtimeMs < newest(sources.filter(existsSync))) {
      t.skip(`${binary} is older than its sources; rebuild to compare`);
      return;
    }
    const ours = quotaAlarmsFromCatalogs(readCatalogs(CATALOG_DIR))('HostedMcp');
    assert.deepEqual(quotaAlarmsFromCommand(binary)('HostedMcp'), ours);
  });
});
