// The deployment dashboard: its metric widgets, the audit names they use, and one Logs Insights
// widget per queries/*.insights file carrying exactly the file's text.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { Duration } from 'aws-cdk-lib';
import { connectorHeading, failuresByStatusSearch } from '../src/connector-rows.ts';
import { EMF, SPEND_QUERY, WRITES_NOTE, WRITES_QUERY } from '../src/dashboard.ts';
import { TOOL_LATENCY_QUERY } from '../src/latency.ts';
import { LIMITER_METRICS, LIMITS_HIT_QUERY } from '../src/limits.ts';
import { AUDIT_EVENT_FIELD, AUTH_DENIED_EVENT } from '../src/mcp-stack.ts';
import { QUERIES_DIR, REPO_ROOT } from '../src/paths.ts';
import { parseCatalog } from '../src/catalogs.ts';
import { readQueries } from '../src/queries.ts';
import { quotaAlarmsFromCatalogs } from '../src/quota-alarms.ts';
import { CATALOGS, dashboardBody, synth, tempDir, testConfig, writeFiles } from './helpers.ts';

const AUDIT_LOG = '/hosted-mcp/example/mcp-server';
type Widget = Record<string, any>;

function widget(widgets: Widget[], title: string): Widget {
  const w = widgets.find((x) => x.properties?.title === title);
  assert.ok(w, `no widget "${title}"; have ${widgets.map((x) => x.properties?.title).join(' | ')}`);
  return w;
}
/** `[namespace, metric, dim, value, …, {options}]` rows of a metric widget, options split off. */
function rows(w: Widget): { path: string[]; opts: Record<string, any> }[] {
  return (w.properties.metrics as unknown[][]).map((row) => {
    const last = row[row.length - 1];
    const hasOpts = typeof last === 'object' && last !== null;
    return { path: (hasOpts ? row.slice(0, -1) : row) as string[], opts: (hasOpts ? last : {}) as Record<string, any> };
  });
}

describe('dashboard widgets', () => {
  const { mcpT } = synth();
  const widgets = dashboardBody(mcpT).widgets;
  const connectors = CATALOGS.map((c) => c.connector);

  it('is named per deployment', () => {
    mcpT.hasResourceProperties('AWS::CloudWatch::Dashboard', { DashboardName: 'hosted-mcp-example' });
  });

  it('tool calls and errors per tool: SEARCH over the connector+tool EMF dimension set', () => {
    for (const [title, metric] of [['Tool calls per tool', EMF.calls], ['Tool errors per tool', EMF.errors]] as const) {
      const [row] = rows(widget(widgets, title));
      assert.equal(row!.opts.expression, `SEARCH('{"HostedMcp",connector,tool} MetricName="${metric}"', 'Sum', 300)`);
    }
  });

  it('error rate per connector: errors / calls in percent', () => {
    const r = rows(widget(widgets, 'Error rate per connector (%)'));
    const exprs = r.filter((x) => x.opts.expression).map((x) => x.opts.label);
    assert.deepEqual(exprs, connectors);
    for (const c of connectors) {
      assert.ok(r.some((x) => x.path.join('|') === `HostedMcp|calls|connector|${c}` && x.opts.stat === 'Sum'));
      assert.ok(r.some((x) => x.path.join('|') === `HostedMcp|errors|connector|${c}` && x.opts.stat === 'Sum'));
    }
  });

  it('cold starts, Lambda errors and throttles, API 4xx/5xx, auth_denied', () => {
    const names = (title: string): string[] => rows(widget(widgets, title)).map((x) => `${x.path[0]}|${x.path[1]}`);
    assert.deepEqual(names('Cold starts and init duration'), ['HostedMcp|ColdStarts', 'HostedMcp|InitDurationMs']);
    assert.deepEqual(names('Lambda errors and throttles'), ['AWS/Lambda|Errors', 'AWS/Lambda|Throttles', 'AWS/Lambda|ConcurrentExecutions']);
    assert.deepEqual(names('HTTP API requests, 4xx, 5xx'), ['AWS/ApiGateway|Count', 'AWS/ApiGateway|4xx', 'AWS/ApiGateway|5xx']);
    assert.deepEqual(names('auth_denied and API latency'), ['HostedMcp|AuthDenied', 'AWS/ApiGateway|Latency']);
  });

  it('a limits row: the fallback and the daily cap used (no dimensions, with the alarm threshold), beside limits-hit', () => {
    const fallback = widget(widgets, 'Limiter fallback (1: an instance counts in memory)');
    assert.deepEqual(rows(fallback).map((x) => [...x.path, x.opts.stat].join('|')), ['HostedMcp|limiter_fallback|Maximum']);
    const daily = widget(widgets, 'Daily tool-call cap used (%)');
    assert.deepEqual(rows(daily).map((x) => [...x.path, x.opts.stat].join('|')), ['HostedMcp|daily_calls_used_pct|Maximum']);
    assert.deepEqual(daily.properties.annotations.horizontal.map((a: any) => a.value), [80]);
    assert.deepEqual(daily.properties.yAxis.left, { min: 0, max: 100 });
    const hit = widget(widgets, `${LIMITS_HIT_QUERY} (queries/${LIMITS_HIT_QUERY}.insights)`);
    assert.equal(hit.type, 'log');
    // One row: the three widgets side by side, the query widget right of the graphs.
    assert.deepEqual([fallback, daily, hit].map((w) => w.y), [fallback.y, fallback.y, fallback.y]);
    assert.deepEqual([fallback, daily, hit].map((w) => [w.x, w.width]), [[0, 6], [6, 6], [12, 12]]);
    const threshold = dashboardBody(synth({ config: testConfig({ alarms: { dailyCallsUsedPct: 90 } }) }).mcpT).widgets;
    assert.deepEqual(widget(threshold, 'Daily tool-call cap used (%)').properties.annotations.horizontal.map((a: any) => a.value), [90]);
  });
});

describe('connector rows', () => {
  const widgets = dashboardBody(synth().mcpT).widgets;
  const plan = quotaAlarmsFromCatalogs(CATALOGS)('HostedMcp');
  const headings = (ws: Widget[]): string[] =>
    ws.filter((w) => w.type === 'text' && (w.properties.markdown as string).startsWith('## ')).map((w) => (w.properties.markdown as string).split('\n')[0]!.slice(3));
  /** The widgets right below a connector's heading, left to right. */
  const rowOf = (ws: Widget[], connector: string): Widget[] => {
    const heading = ws.find((w) => w.type === 'text' && w.properties.markdown === connectorHeading(CATALOGS.find((c) => c.connector === connector) ?? { connector, file: `${connector}.yaml` }));
    assert.ok(heading, `no heading for ${connector}`);
    return ws.filter((w) => w.y === heading.y + heading.height).sort((a, b) => a.x - b.x);
  };

  it('one row per catalog in shared/connector/catalogs, in catalog order, counted from the catalogs', () => {
    assert.ok(CATALOGS.length >= 2, 'the shipped catalogs');
    assert.deepEqual(headings(widgets), CATALOGS.map((c) => c.connector));
    for (const c of CATALOGS) {
      const row = rowOf(widgets, c.connector);
      assert.deepEqual(row.map((w) => [w.x, w.width]), [[0, 6], [6, 6], [12, 6], [18, 6]], c.connector);
    }
  });

  it('calls and failed calls, failures by status (SEARCH over ToolFailures), latency p50/p95 with the alarm threshold', () => {
    for (const { connector: c } of CATALOGS) {
      const [calls, failures, latency] = rowOf(widgets, c);
      assert.equal(calls!.properties.title, `${c}: calls and failed calls`);
      assert.deepEqual(rows(calls!).map((x) => [...x.path, x.opts.stat].join('|')), [`HostedMcp|calls|connector|${c}|Sum`, `HostedMcp|errors|connector|${c}|Sum`]);
      assert.equal(failures!.properties.title, `${c}: failed calls by status`);
      assert.deepEqual(rows(failures!).map((x) => x.opts.expression), [failuresByStatusSearch('HostedMcp', c, Duration.minutes(5))]);
      assert.equal(rows(failures!)[0]!.opts.expression, `SEARCH('{"HostedMcp",connector,status} MetricName="ToolFailures" connector="${c}"', 'Sum', 300)`);
      assert.equal(latency!.properties.title, `${c}: latency p50 / p95 (ms)`);
      assert.deepEqual(rows(latency!).map((x) => [...x.path, x.opts.stat].join('|')), [`HostedMcp|duration_ms|connector|${c}|p50`, `HostedMcp|duration_ms|connector|${c}|p95`]);
      assert.deepEqual(latency!.properties.annotations.horizontal.map((a: any) => a.value), [3000]);
    }
  });

  it('quota used with the thresholds of the connector\'s own alarms where quota-alarm watches it, else why not', () => {
    const watched = new Set(plan.alarms.map((a) => a.connector));
    assert.ok(watched.has('papierkram') && watched.size < CATALOGS.length, 'some watched, some not');
    for (const { connector: c } of CATALOGS) {
      const quota = rowOf(widgets, c)[3]!;
      if (!watched.has(c)) {
        assert.equal(quota.type, 'text');
        const why = plan.skipped.find((s) => s.connector === c)!.reason;
        assert.equal(quota.properties.markdown, `### ${c}: quota\nNot watched: ${why}.`);
        continue;
      }
      const mine = plan.alarms.filter((a) => a.connector === c && a.metricName === 'QuotaUtilizationPercent').map((a) => a.threshold);
      assert.deepEqual(quota.properties.annotations.horizontal.map((a: any) => a.value), [...new Set(mine)]);
      const r = rows(quota).map((x) => [...x.path, x.opts.stat, x.opts.period].join('|'));
      assert.equal(r[0], `HostedMcp|QuotaUtilizationPercent|Connector|${c}|Maximum|900`);
      const forecast = plan.alarms.some((a) => a.connector === c && a.metricName === 'QuotaExhaustedBeforeWindowEnd');
      assert.deepEqual(r.slice(1), forecast ? [`HostedMcp|QuotaForecastDaysLeft|Connector|${c}|Minimum|900`] : []);
    }
  });

  it('a catalog added is a row added, without a line of infra code', () => {
    const catalogs = [...CATALOGS, parseCatalog('connector: acme\n', 'acme.yaml')];
    const more = dashboardBody(synth({ catalogs }).mcpT).widgets;
    assert.deepEqual(headings(more), catalogs.map((c) => c.connector));
    assert.equal(rowOf(more, 'acme')[0]!.properties.title, 'acme: calls and failed calls');
    assert.equal(rowOf(more, 'acme')[3]!.properties.markdown, '### acme: quota\nNot watched: no quota declared.');
  });
});

describe('latency row', () => {
  const { mcpT } = synth();
  const widgets = dashboardBody(mcpT).widgets;
  const connectors = CATALOGS.map((c) => c.connector);

  it('p95 per connector (the metric the latency alarms watch, their threshold drawn) beside tool-latency', () => {
    const graph = widget(widgets, 'Tool latency p95 per connector (ms), alarm threshold');
    assert.deepEqual(rows(graph).map((x) => [...x.path, x.opts.stat].join('|')), connectors.map((c) => `HostedMcp|duration_ms|connector|${c}|p95`));
    assert.deepEqual(graph.properties.annotations.horizontal.map((a: any) => a.value), [3000]);
    const table = widget(widgets, `${TOOL_LATENCY_QUERY} (queries/${TOOL_LATENCY_QUERY}.insights)`);
    assert.equal(table.type, 'log');
    assert.match(table.properties.query, /pct\(duration_ms, 95\) as p95/);
    assert.deepEqual([graph, table].map((w) => [w.x, w.y, w.width]), [[0, graph.y, 12], [12, graph.y, 12]]);
    const other = dashboardBody(synth({ config: testConfig({ alarms: { toolLatencyP95Ms: 1500 } }) }).mcpT).widgets;
    assert.deepEqual(widget(other, 'Tool latency p95 per connector (ms), alarm threshold').properties.annotations.horizontal.map((a: any) => a.value), [1500]);
  });

  it('missing-capabilities is a widget of its own, full width', () => {
    const w = widget(widgets, 'missing-capabilities (queries/missing-capabilities.insights)');
    assert.equal(w.type, 'log');
    assert.equal(w.width, 24);
  });
});

describe('writes row', () => {
  const { mcpT } = synth();
  const widgets = dashboardBody(mcpT).widgets;

  it('queries/writes.insights per tool beside what its columns mean, below the limits row', () => {
    const table = widget(widgets, `${WRITES_QUERY} (queries/${WRITES_QUERY}.insights)`);
    assert.equal(table.type, 'log');
    assert.match(table.properties.query, /filter event in \["tool_call", "tool_error"\] and ispresent\(dry_run\)/);
    assert.match(table.properties.query, /by connector, tool\n\| sort executed desc/);
    const note = widgets.find((w) => w.type === 'text' && w.properties.markdown === WRITES_NOTE);
    assert.ok(note, 'the note beside the table');
    assert.deepEqual([note, table].map((w) => [w.x, w.y, w.width, w.height]), [[0, table.y, 6, 8], [6, table.y, 18, 8]]);
    const limits = widget(widgets, 'Limiter fallback (1: an instance counts in memory)');
    assert.ok(table.y > limits.y, 'below the limits row');
    // Every column the query makes is explained, outcome_unknown with what to do.
    const aliases = [...(table.properties.query as string).matchAll(/\) as (\w+)/g)].map((m) => m[1]!);
    assert.deepEqual(aliases, ['calls', 'executed', 'dry_runs', 'asked', 'declined', 'refused', 'needs_person', 'replayed', 'conflicts', 'outcome_unknown', 'failed']);
    for (const a of aliases.filter((a) => !['calls', 'executed', 'dry_runs', 'failed'].includes(a))) {
      assert.ok(WRITES_NOTE.includes(`**${a}**`), `the note explains ${a}`);
    }
    assert.match(WRITES_NOTE, /outcome_unknown\*\*: sent, its answer never recorded\. Check/);
  });

  it('no writes query, no writes row', () => {
    const dir = writeFiles(tempDir('queries-no-writes'), { 'a.insights': 'filter event = "tool_call"\n| stats count(*) as n by tool\n' });
    const body = dashboardBody(synth({ queries: readQueries(dir) }).mcpT).widgets;
    assert.ok(!body.some((w) => w.type === 'text' && w.properties.markdown === WRITES_NOTE));
  });
});

describe('spend rows', () => {
  const spendGraphs = (widgets: Widget[]): string[] =>
    widgets.map((w) => w.properties?.title as string | undefined).filter((t): t is string => !!t && / spend /.test(t) && !t.includes('queries/'));

  it('one row per connector whose catalog declares a spend limit, in its unit, from the catalogs', () => {
    const spending = CATALOGS.filter((c) => c.spend);
    assert.ok(spending.some((c) => c.connector === 'replicate'), 'Replicate declares its predictions');
    const widgets = dashboardBody(synth().mcpT).widgets;
    assert.deepEqual(spendGraphs(widgets), spending.flatMap((c) => [
      `${c.connector} spend (${c.spend!.unit} per hour; each caller at most ${c.spend!.limit} a day)`,
      `${c.connector} spend per tool (${c.spend!.unit} per hour)`,
    ]));
    const total = widget(widgets, 'replicate spend (predictions per hour; each caller at most 50 a day)');
    assert.deepEqual(rows(total).map((x) => [...x.path, x.opts.stat, x.opts.period].join('|')), ['HostedMcp|spend|connector|replicate|Sum|3600']);
    const [perTool] = rows(widget(widgets, 'replicate spend per tool (predictions per hour)'));
    assert.equal(perTool!.opts.expression, `SEARCH('{"HostedMcp",connector,tool} MetricName="spend" connector="replicate"', 'Sum', 3600)`);
    const table = widget(widgets, `${SPEND_QUERY} (queries/${SPEND_QUERY}.insights)`);
    assert.ok(table.y > total.y, 'the week per tool below the rows');
    assert.equal(table.width, 24);
  });

  it('a connector that starts spending gets its row without a line of infra code; none without', () => {
    const catalogs = [
      parseCatalog('connector: papierkram\n', 'papierkram.yaml'),
      parseCatalog('connector: runway\nquota: { caller_daily_spend: { unit: credits, limit: 500 } }\n', 'runway.yaml'),
      parseCatalog('connector: replicate\nquota: { caller_daily_spend: { unit: predictions, limit: 50 } }\n', 'replicate.yaml'),
    ];
    const widgets = dashboardBody(synth({ catalogs }).mcpT).widgets;
    assert.deepEqual(spendGraphs(widgets), [
      'runway spend (credits per hour; each caller at most 500 a day)',
      'runway spend per tool (credits per hour)',
      'replicate spend (predictions per hour; each caller at most 50 a day)',
      'replicate spend per tool (predictions per hour)',
    ]);
    const none = dashboardBody(synth({ catalogs: [catalogs[0]!] }).mcpT).widgets;
    assert.deepEqual(spendGraphs(none), []);
  });
});

describe('names shared with the Rust side', () => {
  const fields = readFileSync(join(REPO_ROOT, 'shared/audit/src/fields.rs'), 'utf8');
  const emf = readFileSync(join(REPO_ROOT, 'shared/audit/src/emf.rs'), 'utf8');
  const event = readFileSync(join(REPO_ROOT, 'shared/audit/src/event.rs'), 'utf8');
  const constValue = (text: string, name: string): string | undefined =>
    new RegExp(`pub(?:\\([a-z]+\\))? const ${name}: &str = (?:"([^"]*)"|crate::fields::(\\w+));`).exec(text)?.slice(1).find(Boolean);

  it('EMF metric and dimension names are the shared/audit constants', () => {
    assert.equal(constValue(emf, 'CALLS'), EMF.calls);
    assert.equal(constValue(emf, 'ERRORS'), EMF.errors);
    assert.equal(constValue(emf, 'DURATION_MS'), 'DURATION_MS');
    assert.equal(constValue(fields, 'DURATION_MS'), EMF.durationMs);
    assert.equal(constValue(fields, 'CONNECTOR'), EMF.connector);
    assert.equal(constValue(fields, 'TOOL'), EMF.tool);
    assert.equal(constValue(emf, 'SPEND'), 'SPEND');
    assert.equal(constValue(fields, 'SPEND'), EMF.spend);
    assert.match(emf, /&\[crate::fields::CONNECTOR\],\s*&\[crate::fields::CONNECTOR, crate::fields::TOOL\]/);
  });

  it('the limiter metric names are mcp-server\'s (once it declares them)', (t) => {
    const rustFiles = (dir: string): string[] => readdirSync(dir).flatMap((f) => {
      const path = join(dir, f);
      return statSync(path).isDirectory() ? rustFiles(path) : path.endsWith('.rs') ? [path] : [];
    });
    const sources = [join(REPO_ROOT, 'functions/mcp-server/src'), join(REPO_ROOT, 'shared/audit/src')]
      .flatMap(rustFiles).map((f) => readFileSync(f, 'utf8')).join('\n');
    const declared = (name: string): boolean => new RegExp(`pub(?:\\([a-z]+\\))? const \\w+: &str = "${name}";`).test(sources);
    if (!Object.values(LIMITER_METRICS).some(declared)) {
      t.skip('no Rust constant names the limiter metrics yet');
      return;
    }
    for (const name of Object.values(LIMITER_METRICS)) assert.ok(declared(name), `no \`pub const …: &str = "${name}";\` in mcp-server or shared/audit`);
  });

  it('the auth_denied filter matches the audit `event` field and value', () => {
    assert.equal(constValue(fields, 'EVENT'), AUDIT_EVENT_FIELD);
    assert.ok(event.includes(`=> "${AUTH_DENIED_EVENT}"`));
  });
});

describe('Logs Insights widgets load queries/*.insights', () => {
  const logWidgets = (queriesDir: string): Widget[] =>
    dashboardBody(synth({ queries: readQueries(queriesDir) }).mcpT).widgets.filter((w) => w.type === 'log');
  const expectQueries = (widgets: Widget[], queries: { name: string; text: string }[]): void => {
    assert.equal(widgets.length, queries.length);
    // In file-name order, except tool-latency, limits-hit, writes and spend, which open the list
    // (each sits in its row: latency, limits, writes, spend).
    const first = [TOOL_LATENCY_QUERY, LIMITS_HIT_QUERY, WRITES_QUERY, SPEND_QUERY];
    const ordered = [
      ...first.flatMap((name) => queries.filter((q) => q.name === name)),
      ...queries.filter((q) => !first.includes(q.name)),
    ];
    ordered.forEach((q, i) => {
      const p = widgets[i]!.properties;
      assert.equal(p.title, `${q.name} (queries/${q.name}.insights)`);
      // CDK prefixes the log group; the rest is the file, byte for byte.
      assert.equal(p.query, `SOURCE '${AUDIT_LOG}' | ${q.text}`);
      assert.equal(p.region, '${AWS::Region}');
    });
  };

  it('each file in the repository queries/ folder becomes a widget with identical text', () => {
    const files = readQueries(QUERIES_DIR);
    const widgets = logWidgets(QUERIES_DIR);
    expectQueries(widgets, files.map((f) => ({ name: f.name, text: readFileSync(f.file, 'utf8') })));
  });

  it('two files, two widgets in file-name order; other files ignored; text kept exactly', () => {
    const dir = writeFiles(tempDir('queries'), {
      'b_errors.insights': 'filter event = "tool_error"\n| stats count(*) as n by tool, reason\n| sort n desc\n| limit 5\n',
      'a_calls.insights': "fields ts, tool\n| filter tool like /_list$/ and status != 'ok'",
      'notes.txt': 'not a query',
    });
    expectQueries(logWidgets(dir), [
      { name: 'a_calls', text: "fields ts, tool\n| filter tool like /_list$/ and status != 'ok'" },
      { name: 'b_errors', text: 'filter event = "tool_error"\n| stats count(*) as n by tool, reason\n| sort n desc\n| limit 5\n' },
    ]);
  });

  it('an empty or missing folder gives no Insights widgets', () => {
    assert.equal(logWidgets(tempDir('empty')).length, 0);
    assert.equal(logWidgets(join(tempDir('missing'), 'nope')).length, 0);
  });
});
