// Traces (issue 47): mcp-server exports OpenTelemetry spans by OTLP to the collector of the AWS
// Distro for OpenTelemetry (ADOT) Lambda layer, which runs as an extension beside it and forwards
// them to X-Ray. The layer, the endpoint and the role's right to send traces, added only when
// `mcpServer.tracing` is configured.
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import type { Construct } from 'constructs';
import type { TracingConfig } from './config.ts';
import { ARCHITECTURE } from './rust-function.ts';

/** Where the ADOT collector layer receives OTLP over HTTP (MCP_OTLP_ENDPOINT). */
export const ADOT_OTLP_ENDPOINT = 'http://localhost:4318';

/**
 * The collector layer on `fn` (the configured ARN, else the CDK's latest generic ADOT layer for
 * the stack's region and the functions' architecture) and X-Ray's two write actions on its role
 * (X-Ray has no resource-level permissions: `*`).
 */
export function addTracing(scope: Construct, fn: lambda.Function, role: iam.Role, tracing: TracingConfig): void {
  const layerArn = tracing.layerArn ?? lambda.AdotLambdaLayerGenericVersion.LATEST.layerArn(scope, ARCHITECTURE);
  fn.addLayers(lambda.LayerVersion.fromLayerVersionArn(scope, 'AdotCollectorLayer', layerArn));
  role.addToPrincipalPolicy(
    new iam.PolicyStatement({
      sid: 'SendTraces',
      actions: ['xray:PutTraceSegments', 'xray:PutTelemetryRecords'],
      resources: ['*'],
    }),
  );
}
