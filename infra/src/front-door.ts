// The front door that keeps OAuth discovery working (issue 13): CloudFront in front of the HTTP
// API with a Lambda@Edge origin-response function that puts back the WWW-Authenticate header API
// Gateway renames on the 401 (src/edge/www-authenticate.cjs). Nothing is cached; every viewer
// header but Host reaches the API (API Gateway answers only to its own host name). CloudFront adds
// a secret header to every origin request (ORIGIN_VERIFY) so that mcp-server can refuse requests
// that reach the execute-api endpoint around the distribution.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type CfnResource, Duration, SecretValue, Stack } from 'aws-cdk-lib';
import type * as apigw from 'aws-cdk-lib/aws-apigatewayv2';
import * as acm from 'aws-cdk-lib/aws-certificatemanager';
import * as cloudfront from 'aws-cdk-lib/aws-cloudfront';
import * as origins from 'aws-cdk-lib/aws-cloudfront-origins';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as route53 from 'aws-cdk-lib/aws-route53';
import * as route53Targets from 'aws-cdk-lib/aws-route53-targets';
import type { Construct } from 'constructs';
import type { CustomDomainConfig } from './config.ts';
import { edgeFunctionName } from './names.ts';
import { INFRA_DIR } from './paths.ts';
import { ignoreRedundantRoleDependency } from './rust-function.ts';

/**
 * The origin-verify header: CloudFront sets it on every request to the API (replacing one a viewer
 * sent), its value the deployment secret's `field`, resolved by CloudFormation at deploy (a
 * dynamic reference: the value is in no template). mcp-server learns the header's name from `env`
 * and compares the value with the same secret field (`previousField` too, while rolling it).
 */
export const ORIGIN_VERIFY = {
  header: 'x-origin-verify',
  field: 'origin_verify',
  previousField: 'origin_verify_previous',
  env: 'MCP_ORIGIN_VERIFY_HEADER',
} as const;

/** Lambda@Edge functions live in us-east-1 (CloudFront replicates them). */
export const EDGE_REGION = 'us-east-1';
export const EDGE_CODE_FILE = join(INFRA_DIR, 'src', 'edge', 'www-authenticate.cjs');
/** The line of the edge code that synth fills in. */
const ORIGIN_LINE = "const RESOURCE_ORIGIN = '';";
const EDGE_FUNCTION_ID = 'WwwAuthenticateEdge';
/** CloudFormation's limit for inline (ZipFile) code. */
const INLINE_CODE_LIMIT = 4096;

/**
 * The edge function's code with the resource URL's origin filled in (Lambda@Edge has no
 * environment variables); none: the code takes the distribution's own domain from the event.
 */
export function edgeFunctionCode(resourceOrigin?: string): string {
  const text = readFileSync(EDGE_CODE_FILE, 'utf8');
  if (!text.includes(ORIGIN_LINE)) throw new Error(`${EDGE_CODE_FILE}: the line \`${ORIGIN_LINE}\` that synth fills in is missing`);
  const code = resourceOrigin === undefined ? text : text.replace(ORIGIN_LINE, `const RESOURCE_ORIGIN = ${JSON.stringify(resourceOrigin)};`);
  if (code.length > INLINE_CODE_LIMIT) throw new Error(`${EDGE_CODE_FILE}: ${code.length} characters, inline code takes ${INLINE_CODE_LIMIT}`);
  return code;
}

/**
 * The edge function's role: its log groups only. Lambda@Edge writes to
 * `/aws/lambda/us-east-1.<name>` in the region of each edge location that ran it, hence `*` as the
 * region. EdgeFunction adds `edgelambda.amazonaws.com` to the trust policy.
 */
export function edgeFunctionRole(scope: Construct, stage: string): iam.Role {
  const stack = Stack.of(scope);
  const role = new iam.Role(scope, 'WwwAuthenticateEdgeRole', {
    assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
    description: `hosted-mcp ${stage}: Lambda@Edge restoring WWW-Authenticate; its log groups in every region`,
  });
  const logGroup = `arn:${stack.partition}:logs:*:${stack.account}:log-group:/aws/lambda/${EDGE_REGION}.${edgeFunctionName(stage)}`;
  role.addToPrincipalPolicy(new iam.PolicyStatement({
    sid: 'WriteEdgeLogs',
    actions: ['logs:CreateLogGroup', 'logs:CreateLogStream', 'logs:PutLogEvents'],
    resources: [logGroup, `${logGroup}:*`],
  }));
  return role;
}

export interface CloudFrontFrontDoorProps {
  readonly stage: string;
  /** The deployment secret (name or full ARN): its `origin_verify` field is the origin-verify header's value. */
  readonly secretId: string;
  readonly api: apigw.IHttpApi;
  /** `<api id>.execute-api.<region>.<suffix>`: the origin. */
  readonly apiHost: string;
  /** Served by the distribution (its certificate in us-east-1), with alias records when a zone is given. */
  readonly customDomain?: CustomDomainConfig;
  /** The origin of the resource URL when known at synth (custom domain or `oauth.resourceUrl`). */
  readonly resourceOrigin?: string;
  /** Where the edge function's role lives: the us-east-1 edge stack (or this stack in us-east-1). */
  readonly edgeRole: iam.IRole;
  /** The edge stack's construct id, for EdgeFunction to put the function there. */
  readonly edgeStackId?: string;
}

/** `{{resolve:secretsmanager:<secretId>:SecretString:origin_verify::}}`: resolved by CloudFormation, never in the template. */
export function originVerifyValue(secretId: string): SecretValue {
  return SecretValue.secretsManager(secretId, { jsonField: ORIGIN_VERIFY.field });
}

export function cloudFrontFrontDoor(scope: Construct, props: CloudFrontFrontDoorProps): {
  distribution: cloudfront.Distribution;
  edgeFunction: cloudfront.experimental.EdgeFunction;
} {
  const edgeFunction = new cloudfront.experimental.EdgeFunction(scope, EDGE_FUNCTION_ID, {
    functionName: edgeFunctionName(props.stage),
    description: `hosted-mcp ${props.stage}: origin response, restores the WWW-Authenticate API Gateway renames`,
    runtime: lambda.Runtime.NODEJS_22_X,
    handler: 'index.handler',
    code: lambda.Code.fromInline(edgeFunctionCode(props.resourceOrigin)),
    memorySize: 128,
    timeout: Duration.seconds(5),
    role: props.edgeRole,
    ...(props.edgeStackId ? { stackId: props.edgeStackId } : {}),
  });
  // The function EdgeFunction made: in the edge stack under the same id, or its own child `Fn` in us-east-1;
  // across regions also the provider that reads the version ARN from SSM.
  const fn = props.edgeStackId ? Stack.of(props.edgeRole).node.findChild(EDGE_FUNCTION_ID) : edgeFunction.node.findChild('Fn');
  ignoreRedundantRoleDependency(fn.node.defaultChild as CfnResource);
  const reader = Stack.of(scope).node.tryFindChild('Custom::CrossRegionStringParameterReaderCustomResourceProvider')?.node.tryFindChild('Handler');
  if (reader) ignoreRedundantRoleDependency(reader as CfnResource);
  const cd = props.customDomain;
  const distribution = new cloudfront.Distribution(scope, 'FrontDoor', {
    comment: `hosted-mcp ${props.stage}: MCP API behind CloudFront (OAuth discovery)`,
    defaultBehavior: {
      origin: new origins.HttpOrigin(props.apiHost, {
        protocolPolicy: cloudfront.OriginProtocolPolicy.HTTPS_ONLY,
        originSslProtocols: [cloudfront.OriginSslPolicy.TLS_V1_2],
        customHeaders: { [ORIGIN_VERIFY.header]: originVerifyValue(props.secretId).unsafeUnwrap() },
      }),
      allowedMethods: cloudfront.AllowedMethods.ALLOW_ALL,
      viewerProtocolPolicy: cloudfront.ViewerProtocolPolicy.HTTPS_ONLY,
      cachePolicy: cloudfront.CachePolicy.CACHING_DISABLED,
      originRequestPolicy: cloudfront.OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER,
      edgeLambdas: [{ functionVersion: edgeFunction.currentVersion, eventType: cloudfront.LambdaEdgeEventType.ORIGIN_RESPONSE }],
    },
    ...(cd ? { domainNames: [cd.domainName], certificate: acm.Certificate.fromCertificateArn(scope, 'Certificate', cd.certificateArn) } : {}),
    minimumProtocolVersion: cloudfront.SecurityPolicyProtocol.TLS_V1_2_2021,
    httpVersion: cloudfront.HttpVersion.HTTP2_AND_3,
    // North America and Europe only: the cheapest class; other viewers reach the nearest of those.
    priceClass: cloudfront.PriceClass.PRICE_CLASS_100,
    enableIpv6: true,
  });
  if (cd?.hostedZone) {
    const zone = route53.HostedZone.fromHostedZoneAttributes(scope, 'Zone', { hostedZoneId: cd.hostedZone.id, zoneName: cd.hostedZone.name });
    const target = route53.RecordTarget.fromAlias(new route53Targets.CloudFrontTarget(distribution));
    new route53.ARecord(scope, 'CustomDomainAlias', { zone, recordName: cd.domainName, target });
    new route53.AaaaRecord(scope, 'CustomDomainAliasIpv6', { zone, recordName: cd.domainName, target });
  }
  return { distribution, edgeFunction };
}
