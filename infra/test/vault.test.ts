// Per-user connectors (issue 22, item 3): the vault table and its KMS key, mcp-server's grants on
// them (and nobody else's), its environment, the /connect routes and the Cognito connect client;
// and that none of it exists unless the configuration has `perUserConnectors`.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { Annotations, Match, type Template } from 'aws-cdk-lib/assertions';
import { parseCatalog } from '../src/catalogs.ts';
import { ConfigError, parseConfig } from '../src/config.ts';
import { REPO_ROOT } from '../src/paths.ts';
import { CONNECT_PATHS, CONNECTIONS_ROUTES, VAULT_CONTEXT_KEY, VAULT_ENV, VAULT_TABLE_SCHEMA } from '../src/vault.ts';
import { CATALOGS, CONNECTORS, EXAMPLE_CONFIG, OAUTH_CERTIFICATE_ARN, type Statement, dependencyCycle, flat, logicalId, merge, roleStatements, synth } from './helpers.ts';

const FN = 'hosted-mcp-example-mcp-server';
const VAULT_TABLE = 'hosted-mcp-example-vault';
/** A REST connector acting with each person's own token, beside the shipped catalogs. */
const MAIL = parseCatalog(`connector: mail
base_url: "https://mail.example.com/api"
secrets: [client_id, client_secret]
auth:
  oauth_user:
    authorization_endpoint: "https://accounts.example.com/authorize"
    token_endpoint: "https://accounts.example.com/token"
    client_id: client_id
    client_secret: client_secret
    scopes: [mail.read]
tools: []
`, 'mail.yaml');
const WITH_MAIL = [...CATALOGS, MAIL];

/** config/example.json with OAuth (Cognito behind CloudFront on the custom domain), then `over`. */
function config(over: Record<string, unknown> = {}) {
  const on = merge(EXAMPLE_CONFIG, {
    customDomain: { certificateArn: OAUTH_CERTIFICATE_ARN },
    mcpServer: { trustedProxies: ['130.176.0.0/17'] },
    oauth: { cognito: { domainPrefix: 'example-mcp' } },
    perUserConnectors: {},
  });
  return parseConfig(merge(on, over), 'test config', [...CONNECTORS, 'mail']);
}

function env(t: Template): Record<string, any> {
  return t.toJSON().Resources[logicalId(t, 'AWS::Lambda::Function', { FunctionName: FN })].Properties.Environment.Variables;
}
const routes = (t: Template): string[] => Object.values(t.findResources('AWS::ApiGatewayV2::Route')).map((r: any) => r.Properties.RouteKey).sort();
const problems = (raw: Record<string, unknown>): readonly string[] => {
  try {
    // The example's certificate is regional: the external issuer here goes without CloudFront.
    parseConfig(merge(EXAMPLE_CONFIG, raw), 'test config', CONNECTORS);
  } catch (e) {
    if (e instanceof ConfigError) return e.problems;
    throw e;
  }
  return [];
};
/** Every identity statement of every role and policy in a template, flattened. */
const allStatements = (t: Template): string => JSON.stringify([
  ...Object.values(t.findResources('AWS::IAM::Role')).map((r: any) => r.Properties.Policies ?? []),
  ...Object.values(t.findResources('AWS::IAM::Policy')).map((p: any) => p.Properties.PolicyDocument),
]);

describe('perUserConnectors off (the default): nothing of the vault exists', () => {
  for (const [name, t] of [
    ['config/example.json', synth().mcpT],
    ['OAuth with Cognito and an oauth_user catalog, without perUserConnectors', synth({ config: config({ perUserConnectors: undefined }), catalogs: WITH_MAIL }).mcpT],
  ] as const) {
    it(`${name}: no vault table, no KMS key, no grant, no variable, no /connect route, no connect client`, () => {
      assert.deepEqual(Object.values(t.findResources('AWS::DynamoDB::Table')).map((r: any) => r.Properties.TableName).filter((n) => n === VAULT_TABLE), []);
      t.resourceCountIs('AWS::KMS::Key', 0);
      t.resourceCountIs('AWS::KMS::Alias', 0);
      // The ledger's statement reads its own table (the MCP tasks kept there); no other reads.
      const notLedger = JSON.stringify(JSON.parse(allStatements(t), (_, v) => (v?.Sid === 'IdempotencyLedger' ? undefined : v)));
      assert.ok(/"Sid":"IdempotencyLedger"/.test(allStatements(t)), 'the ledger grant is there');
      assert.ok(!/kms:|dynamodb:(GetItem|Query)/.test(notLedger), 'no KMS or vault grant');
      const e = env(t);
      for (const name of Object.values(VAULT_ENV)) assert.ok(!(name in e), name);
      assert.deepEqual(routes(t).filter((r) => r.includes('/connect/') || r.endsWith('/connect') || r.includes('/connections')), []);
      assert.ok(!Object.values(t.findResources('AWS::Cognito::UserPoolClient')).some((c: any) => /connect/.test(c.Properties.ClientName)));
    });
  }

  it('warns at synth when a catalog declares auth.oauth_user and perUserConnectors is off, and the other way round', () => {
    const off = synth({ config: config({ perUserConnectors: undefined }), catalogs: WITH_MAIL });
    // The shipped gsuite and m365 act as each person too: all are named.
    Annotations.fromStack(off.mcp).hasWarning('*', Match.stringLikeRegexp('gsuite, m365, mail declare auth.oauth_user, but perUserConnectors is off'));
    const empty = synth({ config: config(), catalogs: CATALOGS.filter((c) => !c.oauthUser) });
    Annotations.fromStack(empty.mcp).hasWarning('*', Match.stringLikeRegexp('no catalog declares auth.oauth_user'));
    // With no connector to connect, Cognito gets no connect client (it would need a callback URL).
    assert.ok(!Object.values(empty.mcpT.findResources('AWS::Cognito::UserPoolClient')).some((c: any) => /connect/.test(c.Properties.ClientName)));
  });

  it('refuses perUserConnectors without oauth, and without a connect client id at an external issuer', () => {
    assert.deepEqual(problems({ perUserConnectors: {} }).filter((p) => p.startsWith('perUserConnectors')).length, 1);
    const external = { oauth: { external: { issuer: 'https://login.example.com' }, frontDoor: 'api-gateway' }, perUserConnectors: {} };
    assert.ok(problems(external).some((p) => p.startsWith('perUserConnectors.connectClientId')), problems(external).join('\n'));
    assert.deepEqual(problems({ ...external, perUserConnectors: { connectClientId: 'hosted-mcp-connect' } }), []);
    assert.ok(problems({ oauth: external.oauth, perUserConnectors: { pointInTimeRecoveryDays: 36 } }).some((p) => p.startsWith('perUserConnectors.pointInTimeRecoveryDays')));
    assert.ok(problems({ oauth: external.oauth, perUserConnectors: { connectClientId: 'x', tabel: true } }).some((p) => p.startsWith('perUserConnectors.tabel')));
  });
});

describe('perUserConnectors on (Cognito behind CloudFront, a mail connector with auth: oauth_user)', () => {
  const s = synth({ config: config(), catalogs: WITH_MAIL });
  const t = s.mcpT;
  const tableId = logicalId(t, 'AWS::DynamoDB::Table', { TableName: VAULT_TABLE });
  const keyId = Object.keys(t.findResources('AWS::KMS::Key'))[0]!;
  const role = Object.keys(t.findResources('AWS::IAM::Role')).find((id) => id.startsWith('McpServerRole'))!;

  it('creates the vault table with the key schema the vault code uses: pk (S) and sk (S), on demand, no TTL, no index, no stream', () => {
    const r = t.toJSON().Resources[tableId];
    assert.deepEqual(r.Properties.KeySchema, [
      { AttributeName: VAULT_TABLE_SCHEMA.partitionKey, KeyType: 'HASH' },
      { AttributeName: VAULT_TABLE_SCHEMA.sortKey, KeyType: 'RANGE' },
    ]);
    assert.deepEqual(r.Properties.AttributeDefinitions, [{ AttributeName: 'pk', AttributeType: 'S' }, { AttributeName: 'sk', AttributeType: 'S' }]);
    assert.equal(r.Properties.BillingMode, 'PAY_PER_REQUEST');
    for (const absent of ['TimeToLiveSpecification', 'GlobalSecondaryIndexes', 'LocalSecondaryIndexes', 'StreamSpecification']) {
      assert.ok(!(absent in r.Properties), absent);
    }
  });

  it('keeps the table (Retain, deletion protection) with point-in-time recovery off unless a period is configured', () => {
    const r = t.toJSON().Resources[tableId];
    assert.equal(r.DeletionPolicy, 'Retain');
    assert.equal(r.UpdateReplacePolicy, 'Retain');
    assert.equal(r.Properties.DeletionProtectionEnabled, true);
    assert.deepEqual(r.Properties.PointInTimeRecoverySpecification, { PointInTimeRecoveryEnabled: false });
    const pitr = synth({ config: config({ perUserConnectors: { pointInTimeRecoveryDays: 7 } }), catalogs: WITH_MAIL }).mcpT;
    pitr.hasResourceProperties('AWS::DynamoDB::Table', {
      TableName: VAULT_TABLE,
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true, RecoveryPeriodInDays: 7 },
    });
  });

  it('creates one symmetric KMS key with rotation on, kept on delete, aliased alias/hosted-mcp-<stage>-vault', () => {
    t.resourceCountIs('AWS::KMS::Key', 1);
    const k = t.toJSON().Resources[keyId];
    assert.equal(k.Properties.EnableKeyRotation, true);
    assert.equal(k.DeletionPolicy, 'Retain');
    assert.ok(!('KeySpec' in k.Properties) || k.Properties.KeySpec === 'SYMMETRIC_DEFAULT');
    t.hasResourceProperties('AWS::KMS::Alias', { AliasName: 'alias/hosted-mcp-example-vault', TargetKeyId: { 'Fn::GetAtt': [keyId, 'Arn'] } });
    // The key policy names no principal but the account (CDK's default), so only IAM grants reach it.
    const principals = k.Properties.KeyPolicy.Statement.map((st: any) => flat(st.Principal.AWS));
    assert.deepEqual(principals, ['arn:aws:iam::${AWS::AccountId}:root']);
  });

  it('grants mcp-server GetItem, UpdateItem and Query on the table ARN, and GenerateDataKey and Decrypt on the key with context `person` only', () => {
    const { statements, managed } = roleStatements(t, role);
    assert.deepEqual(managed, []);
    const vault = statements.filter((st) => st.sid?.startsWith('Vault'));
    const expected: Statement[] = [
      {
        sid: 'VaultDataKeys',
        actions: ['kms:Decrypt', 'kms:GenerateDataKey'],
        resources: [`\${GetAtt:${keyId}.Arn}`],
        condition: {
          'ForAllValues:StringEquals': { 'kms:EncryptionContextKeys': [VAULT_CONTEXT_KEY] },
          Null: { [`kms:EncryptionContext:${VAULT_CONTEXT_KEY}`]: 'false' },
        },
      },
      { sid: 'VaultItems', actions: ['dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:UpdateItem'], resources: [`\${GetAtt:${tableId}.Arn}`] },
    ];
    assert.deepEqual(vault, expected);
    // No other statement of the role names the table or the key, and none grants KMS otherwise.
    const others = JSON.stringify(statements.filter((st) => !st.sid?.startsWith('Vault')));
    assert.ok(!others.includes(tableId) && !others.includes(keyId) && !others.includes('kms:'), others);
  });

  it('grants nothing of the vault to any other role (Cognito trigger, edge reader, ops functions)', () => {
    const roles = Object.keys(t.findResources('AWS::IAM::Role')).filter((id) => id !== role);
    assert.ok(roles.length > 0);
    for (const other of roles) {
      const text = JSON.stringify(roleStatements(t, other).statements);
      assert.ok(!text.includes(tableId) && !text.includes(keyId) && !text.includes('kms:'), `${other}: ${text}`);
    }
    assert.ok(!/kms:|vault/.test(JSON.stringify(s.opsT.toJSON().Resources)), 'the ops stack knows nothing of the vault');
  });

  it('sets MCP_VAULT_TABLE, MCP_VAULT_KEY_ID (the key ARN) and MCP_CONNECT_CLIENT_ID (the connect client, also an accepted audience)', () => {
    const e = env(t);
    assert.deepEqual(e[VAULT_ENV.vaultTable], { Ref: tableId });
    assert.deepEqual(e[VAULT_ENV.vaultKeyId], { 'Fn::GetAtt': [keyId, 'Arn'] });
    const connect = logicalId(t, 'AWS::Cognito::UserPoolClient', { ClientName: 'hosted-mcp-example-connect' });
    const claude = logicalId(t, 'AWS::Cognito::UserPoolClient', { ClientName: 'hosted-mcp-example-claude' });
    assert.deepEqual(e[VAULT_ENV.connectClientId], { Ref: connect });
    assert.equal(flat(e.MCP_OAUTH_AUDIENCE), `\${Ref:${claude}},\${Ref:${connect}}`);
  });

  it('creates the connect client public (no secret), authorization code only, returning to <base>/connect/<connector>/signed-in', () => {
    const c = t.toJSON().Resources[logicalId(t, 'AWS::Cognito::UserPoolClient', { ClientName: 'hosted-mcp-example-connect' })].Properties;
    assert.equal(c.GenerateSecret, false);
    assert.deepEqual(c.AllowedOAuthFlows, ['code']);
    assert.deepEqual(c.CallbackURLs, ['https://mcp.example.com/connect/gsuite/signed-in', 'https://mcp.example.com/connect/m365/signed-in', 'https://mcp.example.com/connect/mail/signed-in', 'https://mcp.example.com/connections/signed-in']);
    assert.ok(c.AllowedOAuthScopes.includes('openid'), c.AllowedOAuthScopes);
    t.hasOutput('ConnectRedirectUrimail', { Value: 'https://mcp.example.com/connect/mail/callback' });
  });

  it('routes GET /connect/{connector}, …/signed-in and …/callback to mcp-server; CloudFront passes every path', () => {
    const connectRoutes = routes(t).filter((r) => r.includes('/connect/') || r.endsWith('/connect'));
    assert.deepEqual(connectRoutes, CONNECT_PATHS.map((p) => `GET ${p}`).sort());
    const connectionsRoutes = routes(t).filter((r) => r.includes('/connections'));
    assert.deepEqual(connectionsRoutes, CONNECTIONS_ROUTES.map(([m, p]) => `${m} ${p}`).sort());
    const integrations = Object.keys(t.findResources('AWS::ApiGatewayV2::Integration'));
    for (const r of Object.values(t.findResources('AWS::ApiGatewayV2::Route')) as any[]) {
      if (r.Properties.RouteKey.includes('/connect')) assert.ok(integrations.some((i) => flat(r.Properties.Target).includes(i)), flat(r.Properties.Target));
    }
    const d = (Object.values(t.findResources('AWS::CloudFront::Distribution'))[0] as any).Properties.DistributionConfig;
    assert.ok(!('CacheBehaviors' in d), 'one default behaviour for every path, /connect included');
  });

  it('has no dependency cycle when the connect callbacks name the distribution (no custom domain) or the execute-api host', () => {
    for (const over of [{ customDomain: undefined }, { customDomain: undefined, oauth: { frontDoor: 'api-gateway' } }]) {
      const v = synth({ config: config(over), catalogs: WITH_MAIL });
      assert.equal(dependencyCycle(v.mcpT.toJSON()), undefined);
      const c = v.mcpT.toJSON().Resources[logicalId(v.mcpT, 'AWS::Cognito::UserPoolClient', { ClientName: 'hosted-mcp-example-connect' })].Properties;
      const mail = c.CallbackURLs.map(flat).find((u: string) => u.includes('/connect/mail/')) ?? '';
      assert.match(mail, /^https:\/\/\$\{.+\}\/connect\/mail\/signed-in$/);
      assert.equal(flat(env(v.mcpT).MCP_RESOURCE_URL), mail.replace('/connect/mail/signed-in', '/mcp'));
    }
  });

  it('with an external issuer: the configured connect client id, and no Cognito client', () => {
    const ext = synth({
      config: config({ oauth: { cognito: undefined, external: { issuer: 'https://login.example.com' } }, perUserConnectors: { connectClientId: 'hosted-mcp-connect' } }),
      catalogs: WITH_MAIL,
    }).mcpT;
    ext.resourceCountIs('AWS::Cognito::UserPoolClient', 0);
    const e = env(ext);
    assert.equal(e[VAULT_ENV.connectClientId], 'hosted-mcp-connect');
    assert.ok(!('MCP_OAUTH_AUDIENCE' in e), "the external server's audience rule is its own");
    assert.ok(routes(ext).includes('GET /connect/{connector}/callback'));
  });
});

/** mcp-server's vault code, where it exists (the `vault` branch until merged): the names infra relies on. */
describe('the vault code uses what infra creates and grants (functions/mcp-server/src/vault/)', () => {
  const src = join(REPO_ROOT, 'functions/mcp-server/src');
  // Until the vault code is merged, there is nothing to compare with.
  const read = (rel: string, tc: { skip: (m: string) => void }): string | undefined => {
    if (!existsSync(join(src, 'vault/table.rs'))) {
      tc.skip(`${join(src, 'vault')} does not exist yet`);
      return undefined;
    }
    return readFileSync(join(src, rel), 'utf8');
  };
  const value = (text: string, name: string): string | undefined => new RegExp(`pub(?:\\([a-z]+\\))? const ${name}: &str = "([^"]*)";`).exec(text)?.[1];

  it('table.rs: the key names, and only the item requests granted', (tc) => {
    const text = read('vault/table.rs', tc);
    if (text === undefined) return;
    assert.equal(value(text, 'PARTITION_KEY'), VAULT_TABLE_SCHEMA.partitionKey);
    assert.equal(value(text, 'SORT_KEY'), VAULT_TABLE_SCHEMA.sortKey);
    const calls = [...new Set([...text.matchAll(/\.(get_item|put_item|update_item|delete_item|query|scan|batch_\w+|transact_\w+)\(\)/g)].map((m) => m[1]))].sort();
    assert.deepEqual(calls, ['get_item', 'query', 'update_item'], 'the vault calls other DynamoDB requests than its grant; change the grant deliberately');
  });

  it('keys.rs: the encryption context key, and only GenerateDataKey and Decrypt', (tc) => {
    const text = read('vault/keys.rs', tc);
    if (text === undefined) return;
    assert.equal(value(text, 'CONTEXT_KEY'), VAULT_CONTEXT_KEY);
    const calls = [...new Set([...text.matchAll(/\.(generate_data_key\w*|decrypt|encrypt|re_encrypt|describe_key)\(\)/g)].map((m) => m[1]))].sort();
    assert.deepEqual(calls, ['decrypt', 'generate_data_key']);
    assert.ok([...text.matchAll(/\.encryption_context\(([A-Z_]+),/g)].every((m) => m[1] === 'CONTEXT_KEY'), 'every request names the context key');
  });

  it('http/mod.rs: the connect routes are the ones API Gateway forwards', (tc) => {
    const text = read('http/mod.rs', tc);
    if (text === undefined) return;
    const served = [...text.matchAll(/\.route\(\s*"(\/connect(?:\/[^"]*)?)"/g)].map((m) => m[1]).sort();
    assert.deepEqual(served, [...CONNECT_PATHS].sort());
    const page = [...text.matchAll(/\.route\(\s*"(\/connections[^"]*)"/g)].map((m) => m[1]).sort();
    assert.deepEqual(page, CONNECTIONS_ROUTES.map(([, p]) => p).sort());
  });
});
