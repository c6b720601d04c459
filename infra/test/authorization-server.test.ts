// mcp-server as its own authorization server (issue 46, item 6): with `oauth.authorizationServer`
// the table (pk, TTL on expires_at) and the signing key (ECC_NIST_P256, SIGN_VERIFY), mcp-server's
// grants on them and nobody else's, its environment (MCP_OAUTH_ISSUER its own origin), the public
// routes without an authorizer, behind CloudFront or not; without it none of it; the configuration
// checks; and that infra and the Rust code agree on names, requests and routes.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { Template } from 'aws-cdk-lib/assertions';
import { AS_ENV, AS_KEY_ACTIONS, AS_ROUTES, AS_SIGNING_ALGORITHM, AS_TABLE_ACTIONS, AS_TABLE_SCHEMA, IDP_CALLBACK_PATH, scopeGroupsValue } from '../src/authorization-server.ts';
import { ConfigError, parseConfig } from '../src/config.ts';
import { INFRA_DIR, REPO_ROOT } from '../src/paths.ts';
import { CONNECTORS, EXAMPLE_CONFIG, type Statement, dependencyCycle, flat, logicalId, merge, roleStatements, synth } from './helpers.ts';

const FN = 'hosted-mcp-example-mcp-server';
const TABLE = 'hosted-mcp-example-issuer';
const AS = { idpIssuer: 'https://login.example.com/realms/company', idpClientId: 'hosted-mcp' };
/** config/example-authorization-server.json: behind CloudFront on the custom domain. */
const EXAMPLE = JSON.parse(readFileSync(join(INFRA_DIR, 'config', 'example-authorization-server.json'), 'utf8')) as Record<string, unknown>;

const env = (t: Template): Record<string, any> =>
  t.toJSON().Resources[logicalId(t, 'AWS::Lambda::Function', { FunctionName: FN })].Properties.Environment.Variables;
const routes = (t: Template): any[] => Object.values(t.findResources('AWS::ApiGatewayV2::Route')).map((r: any) => r.Properties);
const routeKeys = AS_ROUTES.map(([method, path]) => `${method} ${path}`);
const mcpRole = (t: Template): string => Object.keys(t.findResources('AWS::IAM::Role')).find((id) => id.startsWith('McpServerRole'))!;
const problems = (raw: Record<string, unknown>): readonly string[] => {
  try {
    parseConfig(raw, 'test config', CONNECTORS);
  } catch (e) {
    if (e instanceof ConfigError) return e.problems;
    throw e;
  }
  return [];
};
const has = (got: readonly string[], key: string, pattern: RegExp): void =>
  assert.ok(got.some((p) => p.startsWith(`${key}: `) && pattern.test(p)), `want ${key}: ${pattern}; got\n${got.join('\n')}`);
/** The example.json deployment with `oauth` (API Gateway alone: its regional certificate) and `over`. */
const withOAuth = (oauth: Record<string, unknown>, over: Record<string, unknown> = {}): Record<string, unknown> =>
  merge(EXAMPLE_CONFIG, { oauth: { frontDoor: 'api-gateway', ...oauth }, ...over });

describe('oauth.authorizationServer off (the default): nothing of it exists', () => {
  const cognito = parseConfig(withOAuth({ cognito: { domainPrefix: 'example-mcp' } }), 't', CONNECTORS);
  for (const [name, t] of [['config/example.json', synth().mcpT], ['OAuth with Cognito', synth({ config: cognito }).mcpT]] as const) {
    it(`${name}: no table, key, grant, variable or route of it`, () => {
      assert.ok(!JSON.stringify(t.toJSON()).includes(TABLE));
      t.resourceCountIs('AWS::KMS::Key', 0);
      assert.ok(!/kms:(Sign|GetPublicKey)/.test(JSON.stringify(roleStatements(t, mcpRole(t)).statements)));
      for (const name of Object.values(AS_ENV)) assert.ok(!(name in env(t)), name);
      assert.deepEqual(routes(t).filter((r) => routeKeys.includes(r.RouteKey)), []);
      assert.ok(!('IdpRedirectUri' in (t.toJSON().Outputs ?? {})));
    });
  }
});

describe('config/example-authorization-server.json (CloudFront, custom domain)', () => {
  const config = parseConfig(EXAMPLE, 'example-authorization-server.json', CONNECTORS);
  const s = synth({ config });
  const t = s.mcpT;
  const tableId = logicalId(t, 'AWS::DynamoDB::Table', { TableName: TABLE });
  const keyId = logicalId(t, 'AWS::KMS::Key');
  const role = mcpRole(t);

  it('creates the table as table.rs writes it: pk (S) alone, TTL on expires_at, on demand, no recovery, kept', () => {
    const r = t.toJSON().Resources[tableId];
    assert.deepEqual(r.Properties.KeySchema, [{ AttributeName: AS_TABLE_SCHEMA.partitionKey, KeyType: 'HASH' }]);
    assert.deepEqual(r.Properties.AttributeDefinitions, [{ AttributeName: 'pk', AttributeType: 'S' }]);
    assert.deepEqual(r.Properties.TimeToLiveSpecification, { AttributeName: AS_TABLE_SCHEMA.ttlAttribute, Enabled: true });
    assert.equal(r.Properties.BillingMode, 'PAY_PER_REQUEST');
    assert.deepEqual(r.Properties.PointInTimeRecoverySpecification, { PointInTimeRecoveryEnabled: false });
    assert.equal(r.Properties.DeletionProtectionEnabled, true);
    assert.equal(r.DeletionPolicy, 'Retain');
    assert.equal(r.Properties.GlobalSecondaryIndexes, undefined);
    assert.equal(r.Properties.StreamSpecification, undefined);
  });

  it('creates the signing key: ECC_NIST_P256, SIGN_VERIFY, no rotation (KMS rotates no asymmetric key), kept, with its alias', () => {
    const k = t.toJSON().Resources[keyId];
    assert.equal(k.Properties.KeySpec, 'ECC_NIST_P256');
    assert.equal(k.Properties.KeyUsage, 'SIGN_VERIFY');
    assert.equal(k.Properties.EnableKeyRotation, undefined);
    assert.equal(k.DeletionPolicy, 'Retain');
    t.hasResourceProperties('AWS::KMS::Alias', { AliasName: 'alias/hosted-mcp-example-issuer', TargetKeyId: { 'Fn::GetAtt': [keyId, 'Arn'] } });
  });

  it("adds to mcp-server's grants exactly Get/Put/UpdateItem on the table, GetPublicKey and Sign (ECDSA_SHA_256) on the key; no other role", () => {
    const statements = roleStatements(t, role).statements;
    const expected: Statement[] = [
      { sid: 'IssuerItems', actions: ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'], resources: [`\${GetAtt:${tableId}.Arn}`] },
      { sid: 'IssuerPublicKey', actions: ['kms:GetPublicKey'], resources: [`\${GetAtt:${keyId}.Arn}`] },
      { sid: 'IssuerSign', actions: ['kms:Sign'], resources: [`\${GetAtt:${keyId}.Arn}`], condition: { StringEquals: { 'kms:SigningAlgorithm': 'ECDSA_SHA_256' } } },
    ];
    assert.deepEqual(statements.filter((st) => st.sid?.startsWith('Issuer')), expected);
    // Everything else is what mcp-server has without this mode.
    const base = synth().mcpT;
    assert.deepEqual(statements.filter((st) => !st.sid?.startsWith('Issuer')), roleStatements(base, mcpRole(base)).statements);
    for (const other of Object.keys(t.findResources('AWS::IAM::Role')).filter((id) => id !== role)) {
      const text = JSON.stringify(roleStatements(t, other).statements);
      assert.ok(!text.includes(tableId) && !text.includes(keyId) && !/kms:Sign/.test(text), `${other}: ${text}`);
    }
  });

  it('has no previous key until a rotation', () => {
    t.resourceCountIs('AWS::KMS::Key', 1);
    assert.ok(!(AS_ENV.previousKeyIds in env(t)));
  });

  it('sets the IdP, our client there, the table, the key ARN, and MCP_OAUTH_ISSUER = the origin of MCP_RESOURCE_URL; no Cognito or external claim settings', () => {
    const e = env(t);
    assert.equal(e[AS_ENV.idpIssuer], AS.idpIssuer);
    assert.equal(e[AS_ENV.idpClientId], AS.idpClientId);
    assert.deepEqual(e[AS_ENV.table], { Ref: tableId });
    assert.deepEqual(e[AS_ENV.keyId], { 'Fn::GetAtt': [keyId, 'Arn'] });
    assert.equal(e.MCP_RESOURCE_URL, 'https://mcp.example.com/mcp');
    assert.equal(e.MCP_OAUTH_ISSUER, 'https://mcp.example.com');
    assert.equal(e.MCP_OAUTH_PROFILES, 'tools=*,accounting=accounting');
    assert.equal(e.MCP_AUTH, 'api_key,oauth');
    for (const name of ['MCP_OAUTH_AUDIENCE', 'MCP_OAUTH_AUDIENCE_CLAIM', 'MCP_OAUTH_PROFILE_CLAIM', 'MCP_OAUTH_TOKEN_TYPES', 'MCP_OAUTH_ALGORITHMS']) {
      assert.ok(!(name in e), `${name}: the server's defaults are what our tokens meet`);
    }
    t.resourceCountIs('AWS::Cognito::UserPool', 0);
  });

  it('routes the metadata and /oauth/* to mcp-server, each with its one method, without an authorizer', () => {
    const mine = routes(t).filter((r) => routeKeys.includes(r.RouteKey));
    assert.deepEqual(mine.map((r) => r.RouteKey).sort(), [...routeKeys].sort());
    const mcp = routes(t).find((r) => r.RouteKey === 'ANY /mcp')!;
    for (const r of mine) {
      assert.ok(r.AuthorizationType === undefined || r.AuthorizationType === 'NONE', JSON.stringify(r));
      assert.equal(r.AuthorizerId, undefined);
      assert.equal(flat(r.Target), flat(mcp.Target), `${r.RouteKey} goes to mcp-server`);
    }
  });

  it('passes them through CloudFront: one behaviour for every path, POST allowed, nothing cached', () => {
    const d = Object.values(t.findResources('AWS::CloudFront::Distribution'))[0] as any;
    const config = d.Properties.DistributionConfig;
    assert.equal(config.CacheBehaviors, undefined);
    assert.ok(config.DefaultCacheBehavior.AllowedMethods.includes('POST'));
    assert.equal(config.DefaultCacheBehavior.CachePolicyId, '4135ea2d-6df8-44a3-9df3-4b5a84be39ad');
  });

  it("outputs the redirect URI to register with our client at the IdP, the table and the key", () => {
    const out = t.toJSON().Outputs;
    assert.equal(out.IdpRedirectUri.Value, `https://mcp.example.com${IDP_CALLBACK_PATH}`);
    assert.deepEqual(out.IssuerTableName.Value, { Ref: tableId });
    assert.deepEqual(out.IssuerKeyArn.Value, { 'Fn::GetAtt': [keyId, 'Arn'] });
    assert.equal(out.OAuthIssuer.Value, 'https://mcp.example.com');
  });
});

describe('a key rotation: generation 2 signs, generation 1 is a previous key', () => {
  const oauth = EXAMPLE.oauth as Record<string, any>;
  const rotating = merge(EXAMPLE, { oauth: { ...oauth, authorizationServer: { ...oauth.authorizationServer, keyGeneration: 2, previousKeyGenerations: [1] } } });
  const t = synth({ config: parseConfig(rotating, 't', CONNECTORS) }).mcpT;
  const keys = t.findResources('AWS::KMS::Key');
  const [first, second] = ['IssuerKey', 'IssuerKey2'].map((prefix) => Object.keys(keys).find((id) => id.replace(/[0-9A-F]{8}$/, '') === prefix)!);

  it('keeps the first key under its old logical id and alias, adds the second beside it', () => {
    assert.ok(first && second, Object.keys(keys).join(', '));
    t.hasResourceProperties('AWS::KMS::Alias', { AliasName: 'alias/hosted-mcp-example-issuer', TargetKeyId: { 'Fn::GetAtt': [first, 'Arn'] } });
    t.hasResourceProperties('AWS::KMS::Alias', { AliasName: 'alias/hosted-mcp-example-issuer-2', TargetKeyId: { 'Fn::GetAtt': [second, 'Arn'] } });
  });

  it('grants GetPublicKey on both keys and Sign on the new one only', () => {
    const statements = roleStatements(t, mcpRole(t)).statements.filter((st) => st.sid?.startsWith('IssuerPublicKey') || st.sid === 'IssuerSign');
    assert.deepEqual(statements.map((st) => [st.sid, st.resources]), [
      ['IssuerPublicKey', [`\${GetAtt:${second}.Arn}`, `\${GetAtt:${first}.Arn}`]],
      ['IssuerSign', [`\${GetAtt:${second}.Arn}`]],
    ]);
  });

  it('signs with the new key and names the old one as previous', () => {
    assert.deepEqual(env(t)[AS_ENV.keyId], { 'Fn::GetAtt': [second, 'Arn'] });
    assert.equal(flat(env(t)[AS_ENV.previousKeyIds]), flat({ 'Fn::Join': [',', [{ 'Fn::GetAtt': [first, 'Arn'] }]] }));
  });

  it('refuses a previous generation that is not earlier, or named twice', () => {
    const bad = (previousKeyGenerations: unknown[]) =>
      problems(merge(EXAMPLE, { oauth: { ...oauth, authorizationServer: { ...oauth.authorizationServer, keyGeneration: 2, previousKeyGenerations } } }));
    has(bad([2]), 'oauth.authorizationServer.previousKeyGenerations', /not earlier than keyGeneration 2/);
    has(bad([1, 1]), 'oauth.authorizationServer.previousKeyGenerations', /twice/);
  });
});

describe('without a custom domain the issuer is the front door\'s own origin, and no cycle', () => {
  for (const frontDoor of ['cloudfront', 'api-gateway'] as const) {
    it(frontDoor, () => {
      const config = parseConfig(merge(EXAMPLE, { customDomain: undefined, oauth: { frontDoor } }), 't', CONNECTORS);
      const t = synth({ config }).mcpT;
      const e = env(t);
      assert.equal(flat(e.MCP_RESOURCE_URL), `${flat(e.MCP_OAUTH_ISSUER)}/mcp`);
      assert.match(flat(e.MCP_OAUTH_ISSUER), frontDoor === 'cloudfront' ? /^https:\/\/\$\{GetAtt:FrontDoor\w+\.DomainName\}$/ : /^https:\/\/\$\{Ref:HttpApi\w+\}\.execute-api\./);
      assert.equal(dependencyCycle(t.toJSON()), undefined);
    });
  }
});

describe('the configuration checks', () => {

  it('accepts the example and the minimal form', () => {
    assert.deepEqual(problems(EXAMPLE), []);
    assert.deepEqual(problems(withOAuth({ authorizationServer: AS })), []);
  });

  it('needs the IdP issuer (https) and our client id there', () => {
    has(problems(withOAuth({ authorizationServer: {} })), 'oauth.authorizationServer.idpIssuer', /required/);
    has(problems(withOAuth({ authorizationServer: {} })), 'oauth.authorizationServer.idpClientId', /required/);
    has(problems(withOAuth({ authorizationServer: { ...AS, idpIssuer: 'http://login.example.com' } })), 'oauth.authorizationServer.idpIssuer', /https issuer URL/);
    has(problems(withOAuth({ authorizationServer: { ...AS, idpClientId: 'two words' } })), 'oauth.authorizationServer.idpClientId', /no spaces/);
    has(problems(withOAuth({ authorizationServer: { ...AS, idpIsuer: 'x' } })), 'oauth.authorizationServer.idpIsuer', /did you mean `idpIssuer`/);
  });

  it('is one issuer: not with cognito or external', () => {
    has(problems(withOAuth({ authorizationServer: AS, cognito: { domainPrefix: 'acme' } })), 'oauth', /not `cognito` and `authorizationServer`/);
    has(problems(withOAuth({ authorizationServer: AS, external: { issuer: 'https://login.example.com' } })), 'oauth', /not `external` and `authorizationServer`/);
  });

  it('keeps what our own tokens need: ES256, at+jwt; scopes of defined profiles', () => {
    has(problems(withOAuth({ authorizationServer: AS, algorithms: ['RS256'] })), 'oauth.algorithms', /must include `ES256`/);
    has(problems(withOAuth({ authorizationServer: AS, tokenTypes: ['JWT'] })), 'oauth.tokenTypes', /must include `at\+jwt`/);
    has(problems(withOAuth({ authorizationServer: { ...AS, scopes: { books: 'books' } } })), 'oauth.authorizationServer.scopes.books', /neither `\*` nor a profile/);
    has(problems(withOAuth({ authorizationServer: { ...AS, scopes: { 'a,b': '*' } } })), 'oauth.authorizationServer.scopes.a,b', /no `,` or `=`/);
  });

  it('gates scopes by the IdP groups: MCP_AS_SCOPE_GROUPS as `scope=group` pairs, only scopes clients may ask for', () => {
    const gated = { ...AS, scopes: { tools: '*', accounting: 'accounting' }, groupsClaim: 'cognito:groups', scopeGroups: { accounting: ['finance', 'owners'], tools: ['*'] } };
    assert.deepEqual(problems(withOAuth({ authorizationServer: gated })), []);
    assert.equal(scopeGroupsValue(gated.scopeGroups), 'accounting=finance,accounting=owners,tools=*');
    has(problems(withOAuth({ authorizationServer: { ...gated, scopeGroups: { books: ['finance'] } } })), 'oauth.authorizationServer.scopeGroups.books', /not a scope clients may ask for/);
    has(problems(withOAuth({ authorizationServer: { ...gated, scopeGroups: { tools: [] } } })), 'oauth.authorizationServer.scopeGroups.tools', /names no group/);
    has(problems(withOAuth({ authorizationServer: { ...gated, scopeGroups: { tools: ['a,b'] } } })), 'oauth.authorizationServer.scopeGroups.tools[0]', /without spaces/);
  });

  it('takes perUserConnectors beside it with the server\'s own connect client, never one named', () => {
    assert.deepEqual(problems(withOAuth({ authorizationServer: AS }, { perUserConnectors: {} })), []);
    has(problems(withOAuth({ authorizationServer: AS }, { perUserConnectors: { connectClientId: 'c' } })), 'perUserConnectors.connectClientId', /a client of its own/);
  });

  it('with perUserConnectors: the vault and the connect routes, and no connect client id (the server uses its own)', () => {
    const t = synth({ config: parseConfig(withOAuth({ authorizationServer: AS }, { perUserConnectors: {} }), 't', CONNECTORS) }).mcpT;
    const variables = env(t);
    assert.ok('MCP_VAULT_TABLE' in variables && 'MCP_AS_IDP_ISSUER' in variables, JSON.stringify(variables));
    assert.ok(!('MCP_CONNECT_CLIENT_ID' in variables));
    assert.ok(routes(t).some((r) => r.RouteKey === 'GET /connect/{connector}/signed-in'));
  });
});

describe('infra and the authorization server code agree', () => {
  const src = join(REPO_ROOT, 'functions/mcp-server/src');
  const read = (file: string): string => readFileSync(join(src, file), 'utf8');
  const consts = (file: string): Map<string, string> =>
    new Map([...read(file).matchAll(/const (\w+): &str = "([^"]*)";/g)].map((m) => [m[1]!, m[2]!]));
  /** `client.get_item()` → `GetItem`: the SDK operations a file calls. */
  const operations = (file: string, service: string): string[] =>
    [...new Set([...read(file).matchAll(/\.(get_item|put_item|update_item|delete_item|query|scan|batch_\w+|transact_\w+|get_public_key|sign|verify|encrypt|decrypt|generate_data_key\w*)\(\)/g)]
      .map((m) => `${service}:${m[1]!.split('_').map((w) => w[0]!.toUpperCase() + w.slice(1)).join('')}`))].sort();

  it('on the table key and TTL attribute (issuer/table.rs)', () => {
    const c = consts('issuer/table.rs');
    assert.equal(c.get('PARTITION_KEY'), AS_TABLE_SCHEMA.partitionKey);
    assert.equal(c.get('EXPIRES_AT'), AS_TABLE_SCHEMA.ttlAttribute);
    assert.ok(!/SORT_KEY|\.query\(\)|\.scan\(\)/.test(read('issuer/table.rs')), 'no sort key, no query');
  });

  it('on the requests: the table\'s in table.rs, the key\'s in kms.rs, and the signing algorithm', () => {
    assert.deepEqual(operations('issuer/table.rs', 'dynamodb'), [...AS_TABLE_ACTIONS].sort());
    assert.deepEqual(operations('issuer/kms.rs', 'kms'), [...AS_KEY_ACTIONS].sort());
    assert.equal(AS_SIGNING_ALGORITHM, 'ECDSA_SHA_256');
    assert.ok(read('issuer/kms.rs').includes('SigningAlgorithmSpec::EcdsaSha256'));
  });

  it('on the variable names (issuer/settings.rs)', () => {
    const c = consts('issuer/settings.rs');
    assert.deepEqual(
      [c.get('IDP_ISSUER'), c.get('IDP_CLIENT_ID'), c.get('TABLE'), c.get('KEY_ID'), c.get('PREVIOUS_KEY_IDS'), c.get('GROUPS_CLAIM'), c.get('SCOPE_GROUPS')],
      [AS_ENV.idpIssuer, AS_ENV.idpClientId, AS_ENV.table, AS_ENV.keyId, AS_ENV.previousKeyIds, AS_ENV.groupsClaim, AS_ENV.scopeGroups],
    );
  });

  it('on the routes and their methods (http/mod.rs over issuer/metadata.rs)', () => {
    const paths = consts('issuer/metadata.rs');
    const served = [...read('http/mod.rs').matchAll(/\.route\(at::(\w+), (get|post)\(issuer::\w+\)\)/g)]
      .map((m) => `${m[2]!.toUpperCase()} ${paths.get(m[1]!)}`);
    assert.deepEqual(served.sort(), [...routeKeys].sort());
    assert.equal(paths.get('CALLBACK'), IDP_CALLBACK_PATH);
  });
});
