// One way to make every Rust Lambda: arm64, provided.al2023, JSON logs into a given log group.
// The code comes from cargo-lambda-cdk's RustFunction (cargo lambda build at synth; skipped when
// the app runs with SKIP_BUNDLING=1) or from a directory of prebuilt `cargo lambda build` output.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { CfnResource, Duration } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as logs from 'aws-cdk-lib/aws-logs';
import { RustFunction } from 'cargo-lambda-cdk';
import type { Construct } from 'constructs';
import { WORKSPACE_MANIFEST } from './paths.ts';

export type LambdaCode =
  /** RustFunction: `cargo lambda build --release --arm64 --bin <binary>` in the workspace. */
  | { readonly kind: 'cargo-lambda' }
  /** `<dir>/<binary>/bootstrap`, as `cargo lambda build --release --arm64 --lambda-dir <dir>` leaves it. */
  | { readonly kind: 'prebuilt'; readonly dir: string };

export const RUNTIME = 'provided.al2023';
export const ARCHITECTURE = lambda.Architecture.ARM_64;

export interface RustLambdaProps {
  readonly binaryName: string;
  readonly functionName: string;
  readonly description: string;
  readonly memoryMb: number;
  readonly timeout: Duration;
  readonly environment: Record<string, string>;
  readonly role: iam.IRole;
  readonly logGroup: logs.ILogGroup;
  readonly reservedConcurrentExecutions?: number;
}

export function rustLambda(scope: Construct, id: string, code: LambdaCode, props: RustLambdaProps): lambda.Function {
  const common = {
    functionName: props.functionName,
    description: props.description,
    architecture: ARCHITECTURE,
    memorySize: props.memoryMb,
    timeout: props.timeout,
    environment: props.environment,
    role: props.role,
    logGroup: props.logGroup,
    loggingFormat: lambda.LoggingFormat.JSON,
    // Lambda drops JSON lines whose `level` is below these. Audit lines carry `level`
    // (info/warn/error) and must all arrive; platform.report (cold starts) is INFO.
    applicationLogLevelV2: lambda.ApplicationLogLevel.INFO,
    systemLogLevelV2: lambda.SystemLogLevel.INFO,
    ...(props.reservedConcurrentExecutions !== undefined
      ? { reservedConcurrentExecutions: props.reservedConcurrentExecutions }
      : {}),
  };
  const fn =
    code.kind === 'prebuilt'
      ? new lambda.Function(scope, id, {
          ...common,
          runtime: new lambda.Runtime(RUNTIME, lambda.RuntimeFamily.OTHER),
          handler: 'bootstrap',
          code: lambda.Code.fromAsset(prebuiltDir(code.dir, props.binaryName)),
        })
      : new RustFunction(scope, id, {
          ...common,
          runtime: RUNTIME,
          manifestPath: WORKSPACE_MANIFEST,
          binaryName: props.binaryName,
        });
  ignoreRedundantRoleDependency(fn.node.defaultChild as CfnResource);
  return fn;
}

/**
 * CDK makes every function DependsOn its role although `Role: !GetAtt` already orders them;
 * cfn-lint's W3005 (redundant dependency) is silenced for this resource only.
 */
export function ignoreRedundantRoleDependency(fn: CfnResource): void {
  fn.addMetadata('cfn-lint', { config: { ignore_checks: ['W3005'] } });
}

/** `<dir>/<binary>`, which must hold the `bootstrap` cargo lambda built. */
function prebuiltDir(dir: string, binary: string): string {
  const path = join(dir, binary);
  if (!existsSync(join(path, 'bootstrap'))) {
    throw new Error(
      `prebuilt Lambda code: ${join(path, 'bootstrap')} is missing; build it with ` +
        `\`cargo lambda build --release --arm64 --bin ${binary} --lambda-dir ${dir}\``,
    );
  }
  return path;
}

/** A role for one function: nothing attached but what the caller grants explicitly. */
export function functionRole(scope: Construct, id: string, description: string): iam.Role {
  return new iam.Role(scope, id, {
    assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
    description,
  });
}

/** Writing its own log group: the only logs permission a function needs to log. */
export function allowLogging(role: iam.Role, logGroup: logs.ILogGroup): void {
  role.addToPrincipalPolicy(
    new iam.PolicyStatement({
      sid: 'WriteOwnLogGroup',
      actions: ['logs:CreateLogStream', 'logs:PutLogEvents'],
      resources: [logGroup.logGroupArn],
    }),
  );
}
