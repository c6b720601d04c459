// OAuth (issue 13), the infra side: off by default and then nothing changes; the Cognito user pool,
// resource server and claude.ai app client; an external authorization server; mcp-server's OAuth
// environment; the well-known routes; the CloudFront front door with its Lambda@Edge
// origin-response function; no dependency cycle in any variant.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Annotations, Match, type Template } from 'aws-cdk-lib/assertions';
import { readFileSync } from 'node:fs';
import { runInNewContext } from 'node:vm';
import { parseConfig } from '../src/config.ts';
import { ORIGIN_VERIFY, edgeFunctionCode } from '../src/front-door.ts';
import { SCOPE_TRIGGER_CODE_FILE } from '../src/oauth.ts';
import { CONNECTORS, EXAMPLE_CONFIG, OAUTH_CERTIFICATE_ARN, dependencyCycle, flat, logicalId, merge, roleStatements, synth, testConfig } from './helpers.ts';

const FN = 'hosted-mcp-example-mcp-server';
const RESOURCE_URL = 'https://mcp.example.com/mcp';
const OAUTH_NAMES = [
  'MCP_AUTH', 'MCP_USER_HEADER_KEYS', 'MCP_OAUTH_ISSUER', 'MCP_RESOURCE_URL', 'MCP_OAUTH_PROFILES', 'MCP_OAUTH_PROFILE_CLAIM',
  'MCP_OAUTH_AUDIENCE_CLAIM', 'MCP_OAUTH_AUDIENCE', 'MCP_OAUTH_ALGORITHMS', 'MCP_OAUTH_LEEWAY_SECS', 'MCP_OAUTH_TIMEOUT_MS',
];
/** CloudFront's managed policies (their ids are fixed). */
const CACHING_DISABLED = '4135ea2d-6df8-44a3-9df3-4b5a84be39ad';
const ALL_VIEWER_EXCEPT_HOST_HEADER = 'b689b0a8-53d0-40ab-baf2-68738e2966ac';

/**
 * config/example.json with OAuth on: Cognito, CloudFront (the custom domain's certificate in
 * us-east-1, CloudFront's ranges trusted), then `over` (`undefined` removes a key).
 */
function oauthConfig(over: Record<string, unknown> = {}) {
  const on = merge(EXAMPLE_CONFIG, {
    customDomain: { certificateArn: OAUTH_CERTIFICATE_ARN },
    mcpServer: { trustedProxies: ['130.176.0.0/17'] },
    oauth: { cognito: { domainPrefix: 'example-mcp' } },
  });
  return parseConfig(merge(on, over), 'test config', CONNECTORS);
}

function env(t: Template): Record<string, any> {
  return t.toJSON().Resources[logicalId(t, 'AWS::Lambda::Function', { FunctionName: FN })].Properties.Environment.Variables;
}

function only(t: Template, type: string): any {
  const all = Object.values(t.findResources(type)) as any[];
  assert.equal(all.length, 1, `one ${type}`);
  return all[0];
}

function routes(t: Template): string[] {
  return (Object.values(t.findResources('AWS::ApiGatewayV2::Route')) as any[]).map((r) => r.Properties.RouteKey).sort();
}

describe('OAuth off (the default)', () => {
  const s = synth();

  it('adds nothing: no user pool, distribution, edge stack, well-known routes or OAuth variables', () => {
    for (const type of ['AWS::Cognito::UserPool', 'AWS::Cognito::UserPoolClient', 'AWS::CloudFront::Distribution', 'Custom::CrossRegionStringParameterReader']) {
      s.mcpT.resourceCountIs(type, 0);
    }
    assert.deepEqual(s.app.node.children.filter((c) => 'templateOptions' in c).map((c) => c.node.id).sort(), ['hosted-mcp-example-mcp', 'hosted-mcp-example-ops']);
    assert.deepEqual(routes(s.mcpT), ['ANY /mcp', 'ANY /mcp/{profile}', 'GET /connectors', 'GET /health']);
    assert.deepEqual(Object.keys(env(s.mcpT)).filter((k) => OAUTH_NAMES.includes(k)), []);
    assert.equal(s.config.oauth, undefined);
    assert.equal(s.mcp.distribution, undefined);
    // The custom domain stays API Gateway's, with its regional certificate.
    s.mcpT.resourceCountIs('AWS::ApiGatewayV2::DomainName', 1);
  });

  it('synthesizes the same templates as a configuration stating the OAuth keys off', () => {
    const stated = synth({ config: testConfig({ userHeaderKeys: [] }) });
    assert.deepEqual(stated.mcpT.toJSON(), s.mcpT.toJSON());
    assert.deepEqual(stated.opsT.toJSON(), s.opsT.toJSON());
  });

  it('sets MCP_USER_HEADER_KEYS from userHeaderKeys alone, without turning OAuth on', () => {
    const e = env(synth({ config: testConfig({ userHeaderKeys: ['open-webui', 'ops'] }) }).mcpT);
    assert.equal(e.MCP_USER_HEADER_KEYS, 'open-webui,ops');
    assert.deepEqual(Object.keys(e).filter((k) => OAUTH_NAMES.includes(k)), ['MCP_USER_HEADER_KEYS']);
  });
});

describe('Cognito authorization server', () => {
  const s = synth({ config: oauthConfig() });
  const t = s.mcpT;

  it('is a user pool of admin-created users signing in by e-mail, strong passwords, optional TOTP, kept on delete', () => {
    const pool = only(t, 'AWS::Cognito::UserPool');
    const p = pool.Properties;
    assert.deepEqual(p.AdminCreateUserConfig, { AllowAdminCreateUserOnly: true });
    assert.deepEqual(p.UsernameAttributes, ['email']);
    assert.deepEqual(p.Policies.PasswordPolicy, {
      MinimumLength: 14, RequireLowercase: true, RequireUppercase: true, RequireNumbers: true, RequireSymbols: true, TemporaryPasswordValidityDays: 3,
    });
    assert.equal(p.MfaConfiguration, 'OPTIONAL');
    assert.deepEqual(p.EnabledMfas, ['SOFTWARE_TOKEN_MFA']);
    assert.equal(p.DeletionProtection, 'ACTIVE');
    assert.equal(pool.DeletionPolicy, 'Retain');
    assert.equal(pool.UpdateReplacePolicy, 'Retain');
  });

  it('follows selfSignUp and mfa', () => {
    const open = only(synth({ config: oauthConfig({ oauth: { cognito: { selfSignUp: true, selfSignUpScopes: [], mfa: 'required' } } }) }).mcpT, 'AWS::Cognito::UserPool').Properties;
    assert.deepEqual([open.AdminCreateUserConfig.AllowAdminCreateUserOnly, open.MfaConfiguration], [false, 'ON']);
    const off = only(synth({ config: oauthConfig({ oauth: { cognito: { mfa: 'off' } } }) }).mcpT, 'AWS::Cognito::UserPool').Properties;
    assert.deepEqual([off.MfaConfiguration, off.EnabledMfas], ['OFF', undefined]);
  });

  it('has a domain with the configured prefix', () => {
    assert.equal(only(t, 'AWS::Cognito::UserPoolDomain').Properties.Domain, 'example-mcp');
  });

  it('has a resource server named by the resource URL with the scope `tools`, or the configured identifier and scopes', () => {
    const rs = only(t, 'AWS::Cognito::UserPoolResourceServer').Properties;
    assert.equal(rs.Identifier, RESOURCE_URL);
    assert.deepEqual(rs.Scopes.map((x: any) => x.ScopeName), ['tools']);
    const custom = synth({ config: oauthConfig({ oauth: { cognito: { resourceServerId: 'hosted-mcp', scopes: { tools: '*', accounting: 'accounting' } } } }) }).mcpT;
    const crs = only(custom, 'AWS::Cognito::UserPoolResourceServer').Properties;
    assert.equal(crs.Identifier, 'hosted-mcp');
    assert.deepEqual(crs.Scopes.map((x: any) => x.ScopeName), ['tools', 'accounting']);
    assert.equal(env(custom).MCP_OAUTH_PROFILES, 'hosted-mcp/tools=*,hosted-mcp/accounting=accounting');
  });

  it("registers one app client for claude.ai: authorization code only, no secret, claude.ai's callbacks, the resource server's scopes and openid", () => {
    const c = only(t, 'AWS::Cognito::UserPoolClient').Properties;
    assert.deepEqual(c.AllowedOAuthFlows, ['code']);
    assert.equal(c.AllowedOAuthFlowsUserPoolClient, true);
    assert.equal(c.GenerateSecret, false);
    assert.deepEqual(c.CallbackURLs, ['https://claude.ai/api/mcp/auth_callback', 'https://claude.com/api/mcp/auth_callback']);
    const rs = logicalId(t, 'AWS::Cognito::UserPoolResourceServer');
    assert.deepEqual(c.AllowedOAuthScopes.map(flat), [`\${Ref:${rs}}/tools`, 'openid']);
    assert.deepEqual(c.SupportedIdentityProviders, ['COGNITO']);
    assert.deepEqual(c.ExplicitAuthFlows, ['ALLOW_USER_SRP_AUTH', 'ALLOW_REFRESH_TOKEN_AUTH']);
    assert.equal(c.PreventUserExistenceErrors, 'ENABLED');
  });

  it('adds the configured callbacks, and a secret when confidential', () => {
    const c = only(synth({ config: oauthConfig({ oauth: { cognito: { callbackUrls: ['http://localhost:33418/callback'], confidentialClient: true } } }) }).mcpT, 'AWS::Cognito::UserPoolClient').Properties;
    assert.deepEqual(c.CallbackURLs.slice(2), ['http://localhost:33418/callback']);
    assert.equal(c.GenerateSecret, true);
  });

  it("points mcp-server at the pool: issuer, client_id as audience, the prefixed scope as the whole deployment's grant", () => {
    const e = env(t);
    const pool = logicalId(t, 'AWS::Cognito::UserPool');
    const client = logicalId(t, 'AWS::Cognito::UserPoolClient');
    assert.equal(flat(e.MCP_OAUTH_ISSUER), `https://cognito-idp.eu-central-1.\${AWS::URLSuffix}/\${Ref:${pool}}`);
    assert.equal(e.MCP_RESOURCE_URL, RESOURCE_URL);
    assert.equal(e.MCP_AUTH, 'api_key,oauth');
    assert.equal(e.MCP_OAUTH_AUDIENCE_CLAIM, 'client_id');
    assert.deepEqual(e.MCP_OAUTH_AUDIENCE, { Ref: client });
    assert.equal(e.MCP_OAUTH_PROFILE_CLAIM, 'scope');
    assert.equal(e.MCP_OAUTH_PROFILES, `${RESOURCE_URL}/tools=*`);
    for (const unset of ['MCP_OAUTH_ALGORITHMS', 'MCP_OAUTH_LEEWAY_SECS', 'MCP_OAUTH_TIMEOUT_MS', 'MCP_OAUTH_TOKEN_TYPES', 'MCP_USER_HEADER_KEYS']) assert.ok(!(unset in e), unset);
  });

  it('turns API keys off with apiKeys: false, and passes algorithms, leeway, fetch timeout and token types through', () => {
    const e = env(synth({ config: oauthConfig({ oauth: { apiKeys: false, algorithms: ['RS256', 'ES256'], leewaySeconds: 10, fetchTimeoutMs: 1500, tokenTypes: ['at+jwt', 'JWT'] } }) }).mcpT);
    assert.deepEqual([e.MCP_AUTH, e.MCP_OAUTH_ALGORITHMS, e.MCP_OAUTH_LEEWAY_SECS, e.MCP_OAUTH_TIMEOUT_MS, e.MCP_OAUTH_TOKEN_TYPES], ['oauth', 'RS256,ES256', '10', '1500', 'at+jwt,JWT']);
  });

  it('outputs the pool id, the client id, the domain URL and the issuer (never a client secret)', () => {
    const out = t.toJSON().Outputs;
    assert.equal(flat(out.CognitoUserPoolId.Value), `\${Ref:${logicalId(t, 'AWS::Cognito::UserPool')}}`);
    assert.equal(flat(out.CognitoClientId.Value), `\${Ref:${logicalId(t, 'AWS::Cognito::UserPoolClient')}}`);
    assert.equal(flat(out.CognitoDomainUrl.Value), `https://\${Ref:${logicalId(t, 'AWS::Cognito::UserPoolDomain')}}.auth.eu-central-1.amazoncognito.com`);
    assert.equal(flat(out.OAuthIssuer.Value), flat(env(t).MCP_OAUTH_ISSUER));
    assert.equal(out.McpUrl.Value, RESOURCE_URL);
    assert.ok(!JSON.stringify(out).includes('ClientSecret'));
  });
});

describe('external authorization server', () => {
  const external = { issuer: 'https://login.example.com/realms/mcp', audienceClaim: 'aud', audience: ['https://mcp.example.com/mcp', 'mcp'], profileClaim: 'roles', profiles: { 'mcp-all': '*' } };
  const t = synth({ config: oauthConfig({ oauth: { cognito: undefined, external } }) }).mcpT;

  it('creates no user pool and passes the configured issuer and claim settings', () => {
    t.resourceCountIs('AWS::Cognito::UserPool', 0);
    const e = env(t);
    assert.deepEqual(
      [e.MCP_OAUTH_ISSUER, e.MCP_OAUTH_AUDIENCE_CLAIM, e.MCP_OAUTH_AUDIENCE, e.MCP_OAUTH_PROFILE_CLAIM, e.MCP_OAUTH_PROFILES, e.MCP_RESOURCE_URL],
      ['https://login.example.com/realms/mcp', 'aud', 'https://mcp.example.com/mcp,mcp', 'roles', 'mcp-all=*', RESOURCE_URL],
    );
    assert.equal(t.toJSON().Outputs.OAuthIssuer.Value, 'https://login.example.com/realms/mcp');
  });

  it("leaves unconfigured claim settings to the server's defaults", () => {
    const e = env(synth({ config: oauthConfig({ oauth: { cognito: undefined, external: { issuer: 'https://login.example.com' } } }) }).mcpT);
    for (const unset of ['MCP_OAUTH_AUDIENCE_CLAIM', 'MCP_OAUTH_AUDIENCE', 'MCP_OAUTH_PROFILE_CLAIM', 'MCP_OAUTH_PROFILES']) assert.ok(!(unset in e), unset);
    assert.equal(e.MCP_OAUTH_ISSUER, 'https://login.example.com');
  });
});

describe('well-known routes', () => {
  it('route the protected resource metadata, root and path-suffixed, GET and OPTIONS, to mcp-server', () => {
    for (const frontDoor of ['cloudfront', 'api-gateway']) {
      const t = synth({ config: oauthConfig({ oauth: { frontDoor }, ...(frontDoor === 'api-gateway' ? { customDomain: { certificateArn: 'arn:aws:acm:eu-central-1:123456789012:certificate/00000000-0000-0000-0000-000000000000' } } : {}) }) }).mcpT;
      assert.deepEqual(routes(t), [
        'ANY /mcp', 'ANY /mcp/{profile}',
        'GET /.well-known/oauth-protected-resource', 'GET /.well-known/oauth-protected-resource/{proxy+}', 'GET /connectors', 'GET /health',
        'OPTIONS /.well-known/oauth-protected-resource', 'OPTIONS /.well-known/oauth-protected-resource/{proxy+}',
      ], frontDoor);
      const integrations = new Set((Object.values(t.findResources('AWS::ApiGatewayV2::Route')) as any[]).map((r) => flat(r.Properties.Target)));
      assert.equal(integrations.size, 1, 'one integration: mcp-server');
    }
  });
});

describe('CloudFront front door', () => {
  const s = synth({ config: oauthConfig() });
  const t = s.mcpT;
  const dist = (): any => only(t, 'AWS::CloudFront::Distribution').Properties.DistributionConfig;

  it('forwards everything but Host to the HTTP API over HTTPS, caches nothing, allows every method, HTTPS only', () => {
    const d = dist();
    const b = d.DefaultCacheBehavior;
    assert.deepEqual(b.AllowedMethods, ['GET', 'HEAD', 'OPTIONS', 'PUT', 'PATCH', 'POST', 'DELETE']);
    assert.equal(b.ViewerProtocolPolicy, 'https-only');
    assert.equal(b.CachePolicyId, CACHING_DISABLED);
    assert.equal(b.OriginRequestPolicyId, ALL_VIEWER_EXCEPT_HOST_HEADER);
    assert.equal(d.CacheBehaviors, undefined, 'one behavior for every path');
    assert.equal(d.Origins.length, 1);
    assert.match(flat(d.Origins[0].DomainName), /^\$\{Ref:HttpApi[0-9A-F]+\}\.execute-api\.eu-central-1\.\$\{AWS::URLSuffix\}$/);
    assert.deepEqual(d.Origins[0].CustomOriginConfig, { OriginProtocolPolicy: 'https-only', OriginSSLProtocols: ['TLSv1.2'] });
  });

  it('runs the edge function on origin responses (viewer responses skip errors), its version read across regions', () => {
    const assoc = dist().DefaultCacheBehavior.LambdaFunctionAssociations;
    assert.equal(assoc.length, 1);
    assert.equal(assoc[0].EventType, 'origin-response');
    const reader = logicalId(t, 'Custom::CrossRegionStringParameterReader');
    assert.equal(flat(assoc[0].LambdaFunctionARN), `\${GetAtt:${reader}.FunctionArn}`);
  });

  it('puts the edge function in a us-east-1 stack: Node.js 22, the inline code with the resource origin, logs only', () => {
    assert.ok(s.edge, 'edge stack');
    assert.equal(s.edge.stackName, 'hosted-mcp-example-edge');
    assert.equal(s.edge.region, 'us-east-1');
    assert.deepEqual(s.mcp.dependencies.map((d) => d.stackName).sort(), ['hosted-mcp-example-edge', 'hosted-mcp-example-ops']);
    const e = s.edgeT!;
    const fnId = logicalId(e, 'AWS::Lambda::Function', { FunctionName: 'hosted-mcp-example-www-authenticate' });
    const fn = e.toJSON().Resources[fnId].Properties;
    assert.deepEqual([fn.Runtime, fn.Handler, fn.MemorySize, fn.Timeout], ['nodejs22.x', 'index.handler', 128, 5]);
    assert.equal(fn.Code.ZipFile, edgeFunctionCode('https://mcp.example.com'));
    assert.match(fn.Code.ZipFile, /const RESOURCE_ORIGIN = "https:\/\/mcp\.example\.com";/);
    e.resourceCountIs('AWS::Lambda::Version', 1);
    const role = /^\$\{GetAtt:(.+)\.Arn\}$/.exec(flat(fn.Role))![1]!;
    const trust = e.toJSON().Resources[role].Properties.AssumeRolePolicyDocument.Statement;
    assert.deepEqual(trust, [{ Action: 'sts:AssumeRole', Effect: 'Allow', Principal: { Service: ['edgelambda.amazonaws.com', 'lambda.amazonaws.com'] } }]);
    const logGroup = 'arn:aws:logs:*:${AWS::AccountId}:log-group:/aws/lambda/us-east-1.hosted-mcp-example-www-authenticate';
    assert.deepEqual(roleStatements(e, role), {
      statements: [{ sid: 'WriteEdgeLogs', actions: ['logs:CreateLogGroup', 'logs:CreateLogStream', 'logs:PutLogEvents'], resources: [logGroup, `${logGroup}:*`] }],
      managed: [],
    });
  });

  it("serves the custom domain (us-east-1 certificate, A and AAAA aliases to the distribution), not API Gateway's", () => {
    const d = dist();
    assert.deepEqual(d.Aliases, ['mcp.example.com']);
    assert.deepEqual(d.ViewerCertificate, { AcmCertificateArn: OAUTH_CERTIFICATE_ARN, MinimumProtocolVersion: 'TLSv1.2_2021', SslSupportMethod: 'sni-only' });
    t.resourceCountIs('AWS::ApiGatewayV2::DomainName', 0);
    t.resourceCountIs('AWS::ApiGatewayV2::ApiMapping', 0);
    const records = (Object.values(t.findResources('AWS::Route53::RecordSet')) as any[]).map((r) => r.Properties);
    assert.deepEqual(records.map((r) => r.Type).sort(), ['A', 'AAAA']);
    const distId = logicalId(t, 'AWS::CloudFront::Distribution');
    for (const r of records) {
      assert.equal(r.Name, 'mcp.example.com.');
      assert.equal(flat(r.AliasTarget.DNSName), `\${GetAtt:${distId}.DomainName}`);
    }
    const out = t.toJSON().Outputs;
    assert.equal(flat(out.DistributionDomainName.Value), `\${GetAtt:${distId}.DomainName}`);
  });

  it("without a custom domain: the distribution's own host is the resource URL, and the edge code takes it from the event", () => {
    const n = synth({ config: oauthConfig({ customDomain: undefined }) });
    const distId = logicalId(n.mcpT, 'AWS::CloudFront::Distribution');
    const url = `https://\${GetAtt:${distId}.DomainName}/mcp`;
    assert.equal(flat(env(n.mcpT).MCP_RESOURCE_URL), url);
    assert.equal(flat(n.mcpT.toJSON().Outputs.McpUrl.Value), url);
    assert.equal(flat(only(n.mcpT, 'AWS::Cognito::UserPoolResourceServer').Properties.Identifier), url);
    assert.equal(only(n.edgeT!, 'AWS::Lambda::Function').Properties.Code.ZipFile, edgeFunctionCode());
    n.mcpT.resourceCountIs('AWS::Route53::RecordSet', 0);
  });

  it('in us-east-1 needs no edge stack: the function sits in the MCP stack', () => {
    const east = synth({ config: oauthConfig({ region: 'us-east-1', customDomain: undefined }) });
    assert.equal(east.edge, undefined);
    east.mcpT.resourceCountIs('Custom::CrossRegionStringParameterReader', 0);
    east.mcpT.hasResourceProperties('AWS::Lambda::Function', { FunctionName: 'hosted-mcp-example-www-authenticate', Runtime: 'nodejs22.x' });
    const assoc = only(east.mcpT, 'AWS::CloudFront::Distribution').Properties.DistributionConfig.DefaultCacheBehavior.LambdaFunctionAssociations;
    assert.equal(assoc[0].EventType, 'origin-response');
  });

  it('warns when mcpServer.trustedProxies is empty (the client IP would be CloudFront\'s), not when set', () => {
    const warning = Match.stringLikeRegexp('without mcpServer.trustedProxies');
    Annotations.fromStack(s.mcp).hasNoWarning('*', warning);
    assert.equal(env(t).MCP_TRUSTED_PROXIES, '130.176.0.0/17');
    const untrusted = synth({ config: oauthConfig({ mcpServer: { trustedProxies: undefined } }) });
    Annotations.fromStack(untrusted.mcp).hasWarning('*', warning);
  });

  it("adds one role to the MCP stack: CDK's reader of the edge version (ssm:GetParameter on its parameters, basic execution)", () => {
    // mcp-server's and the Cognito trigger's roles are checked elsewhere (iam.test.ts, below).
    const roles = Object.keys(t.findResources('AWS::IAM::Role')).filter((id) => !id.startsWith('McpServerRole') && !id.startsWith('CognitoScopesRole'));
    assert.equal(roles.length, 1);
    const { statements, managed } = roleStatements(t, roles[0]!);
    assert.deepEqual(statements, [{ actions: ['ssm:GetParameter'], resources: ['arn:aws:ssm:us-east-1:${AWS::AccountId}:parameter/cdk/EdgeFunctionArn/*'] }]);
    assert.deepEqual(managed.map(flat), ['arn:${AWS::Partition}:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole']);
  });
});

/** The pre-token-generation trigger as Lambda's Node.js runtime loads it, with `env` as its environment. */
function scopeTrigger(env: Record<string, string>): (event: unknown) => Promise<any> {
  const module = { exports: {} as { handler?: (e: unknown) => Promise<unknown> } };
  runInNewContext(readFileSync(SCOPE_TRIGGER_CODE_FILE, 'utf8'), { module, exports: module.exports, process: { env } });
  return async (e) => JSON.parse(JSON.stringify(await module.exports.handler!(e)));
}

/** A V2_0 pre-token-generation event, trimmed to what the trigger reads. */
function tokenEvent(groups: string[], scopes: string[]) {
  return {
    version: '2', triggerSource: 'TokenGeneration_HostedAuth', region: 'eu-central-1', userPoolId: 'eu-central-1_EXAMPLE',
    request: { userAttributes: { sub: 'u-1' }, groupConfiguration: { groupsToOverride: groups, iamRolesToOverride: [], preferredRole: null }, scopes },
    response: { claimsAndScopeOverrideDetails: null },
  };
}

// Issue 23, finding 8: scopes belonged to the app client, so every person could request every scope.
describe('Cognito: scopes belong to people (groups and a pre-token-generation trigger)', () => {
  const config = oauthConfig({ profiles: { accounting: ['papierkram/*'] }, oauth: { cognito: { scopes: { tools: '*', accounting: 'accounting' } } } });
  const s = synth({ config });
  const t = s.mcpT;
  const triggerId = logicalId(t, 'AWS::Lambda::Function', { FunctionName: 'hosted-mcp-example-cognito-scopes' });
  const trigger = t.toJSON().Resources[triggerId].Properties;

  it('creates one Cognito group per scope, named like the scope', () => {
    const groups = (Object.values(t.findResources('AWS::Cognito::UserPoolGroup')) as any[]).map((g) => g.Properties);
    assert.deepEqual(groups.map((g) => g.GroupName), ['tools', 'accounting']);
    const pool = logicalId(t, 'AWS::Cognito::UserPool');
    for (const g of groups) assert.deepEqual(g.UserPoolId, { Ref: pool });
    assert.match(groups[1].Description, /profile accounting/);
  });

  it('runs the trigger (V2_0, access-token customization) at every token issue, on the Essentials plan it needs', () => {
    const p = only(t, 'AWS::Cognito::UserPool').Properties;
    assert.deepEqual(p.LambdaConfig, { PreTokenGenerationConfig: { LambdaArn: { 'Fn::GetAtt': [triggerId, 'Arn'] }, LambdaVersion: 'V2_0' } });
    assert.equal(p.UserPoolTier, 'ESSENTIALS');
    const perm = (Object.values(t.findResources('AWS::Lambda::Permission')) as any[]).map((r) => r.Properties).filter((r) => flat(r.FunctionName) === `\${GetAtt:${triggerId}.Arn}`);
    assert.equal(perm.length, 1);
    assert.equal(perm[0].Principal, 'cognito-idp.amazonaws.com');
    assert.equal(flat(perm[0].SourceArn), `\${GetAtt:${logicalId(t, 'AWS::Cognito::UserPool')}.Arn}`);
  });

  it('gives the trigger the resource server, the scope groups and nothing for a person in no group (no self sign-up)', () => {
    assert.deepEqual([trigger.Runtime, trigger.Handler, trigger.MemorySize, trigger.Timeout], ['nodejs22.x', 'index.handler', 128, 5]);
    assert.equal(trigger.Code.ZipFile, readFileSync(SCOPE_TRIGGER_CODE_FILE, 'utf8'));
    assert.deepEqual(trigger.Environment.Variables, { RESOURCE_SERVER_ID: RESOURCE_URL, SCOPE_GROUPS: '["tools","accounting"]', NO_GROUP_SCOPES: '[]' });
    const open = synth({ config: oauthConfig({ profiles: { accounting: ['papierkram/*'] }, oauth: { cognito: { selfSignUp: true, selfSignUpScopes: ['accounting'], scopes: { tools: '*', accounting: 'accounting' } } } }) }).mcpT;
    const v = open.toJSON().Resources[logicalId(open, 'AWS::Lambda::Function', { FunctionName: 'hosted-mcp-example-cognito-scopes' })].Properties.Environment.Variables;
    assert.equal(v.NO_GROUP_SCOPES, '["accounting"]');
  });

  it('lets the trigger write its own log group and nothing else', () => {
    const roleId = /^\$\{GetAtt:(.+)\.Arn\}$/.exec(flat(trigger.Role))![1]!;
    const log = logicalId(t, 'AWS::Logs::LogGroup', { LogGroupName: '/hosted-mcp/example/cognito-scopes' });
    const { statements, managed } = roleStatements(t, roleId);
    assert.deepEqual(statements, [{ sid: 'WriteOwnLogGroup', actions: ['logs:CreateLogStream', 'logs:PutLogEvents'], resources: [`\${GetAtt:${log}.Arn}`] }]);
    assert.deepEqual(managed, []);
  });

  it('keeps MCP_OAUTH_PROFILE_CLAIM `scope`: what mcp-server advertises to request must be scopes Cognito knows', () => {
    const e = env(t);
    assert.equal(e.MCP_OAUTH_PROFILE_CLAIM, 'scope');
    assert.equal(e.MCP_OAUTH_PROFILES, `${RESOURCE_URL}/tools=*,${RESOURCE_URL}/accounting=accounting`);
  });

  describe('the trigger code, on sample events', () => {
    const run = scopeTrigger({ RESOURCE_SERVER_ID: RESOURCE_URL, SCOPE_GROUPS: '["tools","accounting"]', NO_GROUP_SCOPES: '[]' });
    const [TOOLS, ACCOUNTING] = [`${RESOURCE_URL}/tools`, `${RESOURCE_URL}/accounting`];
    const suppressed = async (groups: string[], scopes: string[], r = run) =>
      (await r(tokenEvent(groups, scopes))).response.claimsAndScopeOverrideDetails.accessTokenGeneration.scopesToSuppress;

    it('keeps a scope for members of its group and drops the others: asking for every scope gains nothing', async () => {
      assert.deepEqual(await suppressed(['accounting'], ['openid', TOOLS, ACCOUNTING]), [TOOLS]);
      assert.deepEqual(await suppressed(['tools'], ['openid', TOOLS]), []);
      assert.deepEqual(await suppressed(['tools', 'accounting'], [TOOLS, ACCOUNTING]), []);
    });

    it('drops every resource-server scope of a person in none of the groups (other groups do not count), keeps openid', async () => {
      assert.deepEqual(await suppressed([], ['openid', TOOLS, ACCOUNTING]), [TOOLS, ACCOUNTING]);
      assert.deepEqual(await suppressed(['eu-central-1_EXAMPLE_Google', 'admins'], [TOOLS]), [TOOLS]);
      assert.deepEqual(await suppressed(['accounting'], [`${RESOURCE_URL}/unknown`]), [`${RESOURCE_URL}/unknown`]);
    });

    it('gives a person in no group selfSignUpScopes, and a group member their groups only', async () => {
      const open = scopeTrigger({ RESOURCE_SERVER_ID: RESOURCE_URL, SCOPE_GROUPS: '["tools","accounting"]', NO_GROUP_SCOPES: '["accounting"]' });
      assert.deepEqual(await suppressed([], [TOOLS, ACCOUNTING], open), [TOOLS]);
      assert.deepEqual(await suppressed(['tools'], [TOOLS, ACCOUNTING], open), [ACCOUNTING]);
    });

    it('refuses to load without the resource server (the sign-in fails rather than open)', () => {
      assert.throws(() => scopeTrigger({ SCOPE_GROUPS: '[]' }), /RESOURCE_SERVER_ID is not set/);
    });
  });
});

// Issue 23, finding 11: the execute-api endpoint stayed reachable beside the distribution.
describe('CloudFront origin verify: the API answers only requests that came through the distribution', () => {
  const s = synth({ config: oauthConfig() });
  const origin = (): any => only(s.mcpT, 'AWS::CloudFront::Distribution').Properties.DistributionConfig.Origins[0];

  it('adds the header to every origin request, its value the deployment secret\'s origin_verify (a dynamic reference, no value in the template)', () => {
    assert.deepEqual(origin().OriginCustomHeaders, [{ HeaderName: 'x-origin-verify', HeaderValue: '{{resolve:secretsmanager:hosted-mcp/example:SecretString:origin_verify::}}' }]);
    const arn = 'arn:aws:secretsmanager:eu-central-1:123456789012:secret:hosted-mcp/prod-AbC123';
    const byArn = only(synth({ config: oauthConfig({ secretId: arn }) }).mcpT, 'AWS::CloudFront::Distribution');
    assert.equal(byArn.Properties.DistributionConfig.Origins[0].OriginCustomHeaders[0].HeaderValue, `{{resolve:secretsmanager:${arn}:SecretString:origin_verify::}}`);
  });

  it('tells mcp-server the header to check (MCP_ORIGIN_VERIFY_HEADER), with CloudFront only', () => {
    assert.equal(env(s.mcpT)[ORIGIN_VERIFY.env], 'x-origin-verify');
    const east = synth({ config: oauthConfig({ region: 'us-east-1', customDomain: undefined }) });
    assert.equal(env(east.mcpT)[ORIGIN_VERIFY.env], 'x-origin-verify');
    for (const config of [testConfig(), oauthConfig({ oauth: { frontDoor: 'api-gateway' }, customDomain: { certificateArn: 'arn:aws:acm:eu-central-1:123456789012:certificate/00000000-0000-0000-0000-000000000000' } })]) {
      assert.ok(!(ORIGIN_VERIFY.env in env(synth({ config }).mcpT)), 'no distribution, nothing to verify');
    }
  });

  it('puts the value in no template, output or environment', () => {
    for (const tt of [s.mcpT, s.opsT, s.edgeT!]) {
      const text = JSON.stringify(tt.toJSON());
      assert.equal(text.match(/origin_verify/g)?.length ?? 0, tt === s.mcpT ? 1 : 0, 'only the one dynamic reference');
    }
  });
});

describe('front door `api-gateway` (relying on the clients\' well-known fallback)', () => {
  const regional = 'arn:aws:acm:eu-central-1:123456789012:certificate/00000000-0000-0000-0000-000000000000';
  const s = synth({ config: oauthConfig({ oauth: { frontDoor: 'api-gateway' }, customDomain: { certificateArn: regional } }) });

  it('adds no distribution and no edge stack; the custom domain stays on API Gateway and names the resource', () => {
    s.mcpT.resourceCountIs('AWS::CloudFront::Distribution', 0);
    assert.equal(s.edge, undefined);
    s.mcpT.resourceCountIs('AWS::ApiGatewayV2::DomainName', 1);
    assert.equal(env(s.mcpT).MCP_RESOURCE_URL, RESOURCE_URL);
    Annotations.fromStack(s.mcp).hasNoWarning('*', Match.stringLikeRegexp('trustedProxies'));
  });

  it('without a custom domain names the execute-api host', () => {
    const n = synth({ config: oauthConfig({ oauth: { frontDoor: 'api-gateway' }, customDomain: undefined }) });
    assert.match(flat(env(n.mcpT).MCP_RESOURCE_URL), /^https:\/\/\$\{Ref:HttpApi[0-9A-F]+\}\.execute-api\.eu-central-1\.\$\{AWS::URLSuffix\}\/mcp$/);
  });
});

describe('no dependency cycle (function environment ↔ distribution ↔ API ↔ function)', () => {
  const variants: [string, Record<string, unknown>][] = [
    ['CloudFront, custom domain', {}],
    ['CloudFront, no custom domain (the environment names the distribution)', { customDomain: undefined }],
    ['CloudFront in us-east-1', { region: 'us-east-1', customDomain: undefined }],
    ['API Gateway, no custom domain', { oauth: { frontDoor: 'api-gateway' }, customDomain: undefined }],
    ['external server behind CloudFront', { oauth: { cognito: undefined, external: { issuer: 'https://login.example.com' } }, customDomain: undefined }],
  ];
  for (const [name, over] of variants) {
    it(name, () => {
      const s = synth({ config: oauthConfig(over) });
      for (const t of [s.mcpT, s.opsT, ...(s.edgeT ? [s.edgeT] : [])]) {
        assert.equal(dependencyCycle(t.toJSON()), undefined);
      }
      assert.ok(CONNECTORS.length > 0);
    });
  }

  it('the cycle check finds one', () => {
    assert.deepEqual(dependencyCycle({ Resources: { A: { Properties: { X: { Ref: 'B' } } }, B: { DependsOn: ['A'] } } }), ['A', 'B', 'A']);
  });
});
