// Assembles the two stacks of one deployment. `main` is the CDK app entry (bin/app.mjs); the tests
// call `addStacks` with their own inputs.
import { isAbsolute, resolve } from 'node:path';
import { Annotations, App, Tags } from 'aws-cdk-lib';
import { type ConnectorCatalog, readCatalogs } from './catalogs.ts';
import { ConfigError, type DeploymentConfig, loadConfig } from './config.ts';
import { EdgeStack } from './edge-stack.ts';
import { EDGE_REGION } from './front-door.ts';
import { McpStack } from './mcp-stack.ts';
import { auditLogGroupName, stackName } from './names.ts';
import { OpsStack } from './ops-stack.ts';
import { CATALOG_DIR, INFRA_DIR, QUERIES_DIR } from './paths.ts';
import { type InsightsQuery, readQueries } from './queries.ts';
import { type QuotaAlarmSource, quotaAlarmsFromCatalogs, quotaAlarmsFromCommand } from './quota-alarms.ts';
import type { LambdaCode } from './rust-function.ts';

/** Context key: a directory of prebuilt `cargo lambda build` output instead of bundling at synth. */
export const CONTEXT_PREBUILT_DIR = 'lambdaAssetDir';
/** Context key: a quota-alarm binary whose `alarms --json` supplies the quota alarms. */
export const CONTEXT_QUOTA_ALARM_BINARY = 'quotaAlarmBinary';
/** CDK's own context key: stacks to bundle assets for; empty means none. */
export const BUNDLING_STACKS = 'aws:cdk:bundling-stacks';

export interface AppInputs {
  readonly config: DeploymentConfig;
  readonly catalogs: readonly ConnectorCatalog[];
  readonly queries: readonly InsightsQuery[];
  readonly code: LambdaCode;
  readonly quotaAlarms: QuotaAlarmSource;
}

export function addStacks(app: App, inputs: AppInputs): { ops: OpsStack; mcp: McpStack; edge?: EdgeStack } {
  const { config } = inputs;
  const quotaAlarmPlan = inputs.quotaAlarms(config.metricsNamespace);
  const env = { region: config.region, ...(config.account ? { account: config.account } : {}) };
  const ops = new OpsStack(app, stackName(config.stage, 'ops'), {
    env,
    description: `hosted-mcp ${config.stage}: ops topic, SES sender, tool-error digest, quota alarms`,
    config,
    auditLogGroupNames: [auditLogGroupName(config.stage)],
    quotaAlarmPlan,
    code: inputs.code,
  });
  // Lambda@Edge lives in us-east-1: a third stack there, unless the deployment is in us-east-1 itself.
  const edge = config.oauth?.frontDoor === 'cloudfront' && config.region !== EDGE_REGION
    ? new EdgeStack(app, stackName(config.stage, 'edge'), {
      env: { ...env, region: EDGE_REGION },
      description: `hosted-mcp ${config.stage}: Lambda@Edge restoring WWW-Authenticate (OAuth behind CloudFront)`,
      stage: config.stage,
    })
    : undefined;
  const mcp = new McpStack(app, stackName(config.stage, 'mcp'), {
    env,
    description: `hosted-mcp ${config.stage}: HTTP API, mcp-server, alarms, dashboard`,
    config,
    catalogs: inputs.catalogs,
    queries: inputs.queries,
    quotaAlarmPlan,
    code: inputs.code,
    ...(edge ? { edge } : {}),
  });
  // The alarms publish to the ops topic by name; create it first.
  mcp.addStackDependency(ops, 'alarm actions publish to the ops topic');
  for (const stack of [ops, mcp, ...(edge ? [edge] : [])]) {
    Tags.of(stack).add('project', 'hosted-mcp');
    Tags.of(stack).add('stage', config.stage);
  }
  return { ops, mcp, ...(edge ? { edge } : {}) };
}

/** `-c quotaAlarmBinary=../target/debug/quota-alarm` asks the function; otherwise the catalogs. */
function quotaAlarmSource(app: App, catalogs: readonly ConnectorCatalog[]): QuotaAlarmSource {
  const binary = app.node.tryGetContext(CONTEXT_QUOTA_ALARM_BINARY) as string | undefined;
  if (!binary) return quotaAlarmsFromCatalogs(catalogs);
  return quotaAlarmsFromCommand(isAbsolute(binary) ? binary : resolve(INFRA_DIR, binary));
}

export function isTruthy(value: string | undefined): boolean {
  return value !== undefined && ['1', 'true', 'yes'].includes(value.toLowerCase());
}

export function main(): void {
  // SKIP_BUNDLING=1: synthesize without building Rust (tests, cfn-lint); CDK then skips every
  // asset bundling step and references the source tree instead. Never deploy such an assembly.
  const skipBundling = isTruthy(process.env.SKIP_BUNDLING);
  const app = new App(skipBundling ? { postCliContext: { [BUNDLING_STACKS]: [] } } : {});
  try {
    const catalogs = readCatalogs(CATALOG_DIR);
    const config = loadConfig((k) => app.node.tryGetContext(k), catalogs.map((c) => c.connector));
    const prebuilt = app.node.tryGetContext(CONTEXT_PREBUILT_DIR) as string | undefined;
    const code: LambdaCode = prebuilt
      ? { kind: 'prebuilt', dir: isAbsolute(prebuilt) ? prebuilt : resolve(INFRA_DIR, prebuilt) }
      : { kind: 'cargo-lambda' };
    const stacks = addStacks(app, {
      config,
      catalogs,
      queries: readQueries(QUERIES_DIR),
      code,
      quotaAlarms: quotaAlarmSource(app, catalogs),
    });
    if (skipBundling) {
      for (const stack of Object.values(stacks)) {
        Annotations.of(stack).addWarningV2(
          'hosted-mcp:bundling-skipped',
          'Lambda bundling skipped (SKIP_BUNDLING=1): the code assets point at the source tree; never deploy this assembly.',
        );
      }
    }
  } catch (e) {
    if (e instanceof ConfigError) {
      process.stderr.write(`${e.message}\n`);
      process.exit(1);
    }
    throw e;
  }
  app.synth();
}
