// Shared test setup: synthesize both stacks offline (no bundling, no lookups) with the feature
// flags of cdk.json, from config/example.json plus per-test overrides.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { BUNDLING_STACKS, addStacks } from '../src/app.ts';
import { type ConnectorCatalog, readCatalogs } from '../src/catalogs.ts';
import { type DeploymentConfig, parseConfig } from '../src/config.ts';
import type { EdgeStack } from '../src/edge-stack.ts';
import type { McpStack } from '../src/mcp-stack.ts';
import type { OpsStack } from '../src/ops-stack.ts';
import { CATALOG_DIR, INFRA_DIR, QUERIES_DIR } from '../src/paths.ts';
import { type InsightsQuery, readQueries } from '../src/queries.ts';
import { type QuotaAlarmSource, quotaAlarmsFromCatalogs } from '../src/quota-alarms.ts';
import type { LambdaCode } from '../src/rust-function.ts';

export const CDK_CONTEXT = (JSON.parse(readFileSync(join(INFRA_DIR, 'cdk.json'), 'utf8')) as { context: Record<string, unknown> }).context;
export const EXAMPLE_CONFIG = JSON.parse(readFileSync(join(INFRA_DIR, 'config', 'example.json'), 'utf8')) as Record<string, unknown>;
/** Every catalog of shared/connector/catalogs. */
export const SHIPPED: readonly ConnectorCatalog[] = readCatalogs(CATALOG_DIR);
/**
 * The shipped catalogs but those that take inbound webhooks (WhatsApp): what the tests synthesize
 * unless told otherwise, a deployment whose resources and grants they list exactly.
 * inbound.test.ts synthesizes the whole shipped set, with the inbound table, key and routes.
 */
export const CATALOGS: readonly ConnectorCatalog[] = SHIPPED.filter((c) => !c.inbound);
export const CONNECTORS = CATALOGS.map((c) => c.connector);

/** A certificate CloudFront can take (us-east-1), for the custom domain behind the OAuth front door. */
export const OAUTH_CERTIFICATE_ARN = 'arn:aws:acm:us-east-1:123456789012:certificate/00000000-0000-0000-0000-000000000000';

/** config/example.json with `overrides` merged in (objects deeply, `undefined` removes a key). */
export function testConfig(overrides: Record<string, unknown> = {}): DeploymentConfig {
  return parseConfig(merge(EXAMPLE_CONFIG, overrides), 'test config', CONNECTORS);
}

export function merge(base: Record<string, unknown>, over: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(over)) {
    if (v === undefined) delete out[k];
    else if (isObject(v) && isObject(out[k])) out[k] = merge(out[k] as Record<string, unknown>, v);
    else out[k] = v;
  }
  return out;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export interface Synth {
  readonly app: App;
  readonly ops: OpsStack;
  readonly mcp: McpStack;
  readonly opsT: Template;
  readonly mcpT: Template;
  /** The us-east-1 stack of the Lambda@Edge function (OAuth behind CloudFront, MCP stack elsewhere). */
  readonly edge?: EdgeStack;
  readonly edgeT?: Template;
  readonly config: DeploymentConfig;
}

export interface SynthOptions {
  readonly config?: DeploymentConfig;
  readonly queries?: readonly InsightsQuery[];
  readonly catalogs?: readonly ConnectorCatalog[];
  readonly quotaAlarms?: QuotaAlarmSource;
  readonly code?: LambdaCode;
  /** Default true: what SKIP_BUNDLING=1 does. */
  readonly skipBundling?: boolean;
  readonly outdir?: string;
}

let defaultSynth: Synth | undefined;

/** Both stacks; without options the (read-only) result is shared within a test file. */
export function synth(options: SynthOptions = {}): Synth {
  if (Object.keys(options).length === 0) return (defaultSynth ??= synthNew({}));
  return synthNew(options);
}

function synthNew(options: SynthOptions): Synth {
  const config = options.config ?? testConfig();
  const catalogs = options.catalogs ?? CATALOGS;
  const app = new App({
    context: CDK_CONTEXT,
    ...(options.skipBundling === false ? {} : { postCliContext: { [BUNDLING_STACKS]: [] } }),
    ...(options.outdir ? { outdir: options.outdir } : {}),
  });
  const { ops, mcp, edge } = addStacks(app, {
    config,
    catalogs,
    queries: options.queries ?? readQueries(QUERIES_DIR),
    code: options.code ?? { kind: 'cargo-lambda' },
    quotaAlarms: options.quotaAlarms ?? quotaAlarmsFromCatalogs(catalogs),
  });
  return {
    app, ops, mcp, opsT: Template.fromStack(ops), mcpT: Template.fromStack(mcp),
    ...(edge ? { edge, edgeT: Template.fromStack(edge) } : {}),
    config,
  };
}

const tempDirs: string[] = [];
process.on('exit', () => {
  for (const d of tempDirs) rmSync(d, { recursive: true, force: true });
});

/** A fresh directory under the OS temp dir, removed when the test process exits. */
export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), `hosted-mcp-infra-${prefix}-`));
  tempDirs.push(dir);
  return dir;
}

export function writeFiles(dir: string, files: Record<string, string>): string {
  mkdirSync(dir, { recursive: true });
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

/**
 * A CloudFormation value as a string: Fn::Join concatenated, `Ref`s and `GetAtt`s as
 * `${Ref:Id}` / `${GetAtt:Id.Attr}`, pseudo parameters as `${AWS::…}`.
 */
export function flat(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (isObject(value)) {
    if ('Ref' in value) {
      const ref = value.Ref as string;
      return ref.startsWith('AWS::') ? `\${${ref}}` : `\${Ref:${ref}}`;
    }
    if ('Fn::GetAtt' in value) return `\${GetAtt:${(value['Fn::GetAtt'] as string[]).join('.')}}`;
    if ('Fn::Join' in value) {
      const [sep, parts] = value['Fn::Join'] as [string, unknown[]];
      return parts.map(flat).join(sep);
    }
    if ('Fn::Sub' in value && typeof value['Fn::Sub'] === 'string') return value['Fn::Sub'];
  }
  return JSON.stringify(value);
}

export interface Statement {
  readonly sid?: string;
  readonly actions: string[];
  readonly resources: string[];
  readonly condition?: unknown;
}

function asList<T>(v: T | T[] | undefined): T[] {
  return v === undefined ? [] : Array.isArray(v) ? v : [v];
}

function normalize(s: Record<string, unknown>): Statement {
  expectAllow(s);
  return {
    ...(s.Sid ? { sid: s.Sid as string } : {}),
    actions: asList(s.Action as string | string[]).sort(),
    resources: asList(s.Resource).map(flat).sort(),
    ...(s.Condition ? { condition: s.Condition } : {}),
  };
}

function expectAllow(s: Record<string, unknown>): void {
  if (s.Effect !== 'Allow') throw new Error(`unexpected statement effect: ${JSON.stringify(s)}`);
  if (s.NotAction || s.NotResource) throw new Error(`NotAction/NotResource: ${JSON.stringify(s)}`);
}

/** Every identity statement a role gets: inline policies, attached AWS::IAM::Policy, managed policies. */
export function roleStatements(t: Template, roleId: string): { statements: Statement[]; managed: unknown[] } {
  const role = t.toJSON().Resources[roleId];
  if (!role || role.Type !== 'AWS::IAM::Role') throw new Error(`${roleId} is not a role`);
  const statements: Statement[] = [];
  for (const p of role.Properties.Policies ?? []) statements.push(...p.PolicyDocument.Statement.map(normalize));
  for (const p of Object.values(t.findResources('AWS::IAM::Policy')) as Record<string, any>[]) {
    const roles = (p.Properties.Roles ?? []).map(flat);
    if (roles.includes(`\${Ref:${roleId}}`)) statements.push(...p.Properties.PolicyDocument.Statement.map(normalize));
  }
  for (const p of Object.values(t.findResources('AWS::IAM::ManagedPolicy')) as Record<string, any>[]) {
    if ((p.Properties.Roles ?? []).map(flat).includes(`\${Ref:${roleId}}`)) statements.push(...p.Properties.PolicyDocument.Statement.map(normalize));
  }
  return { statements: statements.sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b))), managed: role.Properties.ManagedPolicyArns ?? [] };
}

/** Logical id of the one resource of `type` whose properties match `props` (flat-compared). */
export function logicalId(t: Template, type: string, props: Record<string, string> = {}): string {
  const ids = Object.entries(t.findResources(type)).filter(([, r]) =>
    Object.entries(props).every(([k, v]) => flat((r as any).Properties?.[k]) === v),
  ).map(([id]) => id);
  if (ids.length !== 1) throw new Error(`expected one ${type} with ${JSON.stringify(props)}, found ${ids.length}`);
  return ids[0]!;
}

/** The dashboard body as JSON, tokens flattened to `${…}` strings. */
export function dashboardBody(t: Template): { widgets: Record<string, any>[] } {
  const dashboards = Object.values(t.findResources('AWS::CloudWatch::Dashboard')) as Record<string, any>[];
  if (dashboards.length !== 1) throw new Error(`expected one dashboard, found ${dashboards.length}`);
  return JSON.parse(flat(dashboards[0]!.Properties.DashboardBody));
}

/** A cycle of logical ids through Ref, Fn::GetAtt, Fn::Sub and DependsOn, or none. */
export function dependencyCycle(template: Record<string, any>): string[] | undefined {
  const resources = template.Resources as Record<string, any>;
  const deps = new Map<string, Set<string>>();
  const collect = (v: unknown, out: Set<string>): void => {
    if (Array.isArray(v)) v.forEach((x) => collect(x, out));
    else if (typeof v === 'object' && v !== null) {
      for (const [k, x] of Object.entries(v)) {
        if (k === 'Ref' && typeof x === 'string' && x in resources) out.add(x);
        else if (k === 'Fn::GetAtt') out.add((Array.isArray(x) ? x[0] : String(x).split('.')[0]) as string);
        else if (k === 'Fn::Sub') {
          const text = Array.isArray(x) ? x[0] : x;
          for (const m of String(text).matchAll(/\$\{([A-Za-z0-9]+)[.}]/g)) if (m[1]! in resources) out.add(m[1]!);
          collect(x, out);
        } else collect(x, out);
      }
    }
  };
  for (const [id, r] of Object.entries(resources)) {
    const out = new Set<string>();
    collect(r.Properties ?? {}, out);
    for (const d of [r.DependsOn ?? []].flat()) out.add(d);
    deps.set(id, out);
  }
  const state = new Map<string, 'visiting' | 'done'>();
  const path: string[] = [];
  const visit = (id: string): string[] | undefined => {
    if (state.get(id) === 'done') return undefined;
    if (state.get(id) === 'visiting') return [...path.slice(path.indexOf(id)), id];
    state.set(id, 'visiting');
    path.push(id);
    for (const d of deps.get(id) ?? []) {
      const cycle = visit(d);
      if (cycle) return cycle;
    }
    path.pop();
    state.set(id, 'done');
    return undefined;
  };
  for (const id of deps.keys()) {
    const cycle = visit(id);
    if (cycle) return cycle;
  }
  return undefined;
}
