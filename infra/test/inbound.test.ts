// Inbound webhooks (issue 45, item 4): with a catalog that declares `inbound`, the table (TTL on
// `expires_at`) and its KMS key, mcp-server's grants on them and nobody else's, its environment,
// GET and POST /inbound/{connector} without an authorizer, and the alarm on refused bodies over
// the audit log; without one, none of it.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { Template } from 'aws-cdk-lib/assertions';
import { parseCatalog } from '../src/catalogs.ts';
import { INBOUND_CONTEXT_KEY, INBOUND_ENV, INBOUND_PATH, INBOUND_TABLE_SCHEMA } from '../src/inbound.ts';
import { REPO_ROOT } from '../src/paths.ts';
import { CATALOGS, SHIPPED, type Statement, logicalId, roleStatements, synth, testConfig } from './helpers.ts';

const FN = 'hosted-mcp-example-mcp-server';
const TABLE = 'hosted-mcp-example-inbound';
/** The test catalog whose customers answer by signed webhook. */
const CHAT = parseCatalog(readFileSync(join(REPO_ROOT, 'tests/catalogs/inbound/chat.yaml'), 'utf8'), 'chat.yaml');

const env = (t: Template): Record<string, any> =>
  t.toJSON().Resources[logicalId(t, 'AWS::Lambda::Function', { FunctionName: FN })].Properties.Environment.Variables;
const routes = (t: Template): any[] => Object.values(t.findResources('AWS::ApiGatewayV2::Route')).map((r: any) => r.Properties);

describe('no catalog declares inbound: nothing of it exists', () => {
  const t = synth().mcpT;
  it('no inbound table, key, grant, variable, route or alarm', () => {
    assert.ok(!CATALOGS.some((c) => c.inbound));
    assert.ok(CATALOGS.length >= 6, 'the shipped catalogs but WhatsApp');
    assert.ok(!JSON.stringify(t.toJSON()).includes(TABLE));
    for (const name of Object.values(INBOUND_ENV)) assert.ok(!(name in env(t)), name);
    assert.ok(!routes(t).some((r) => r.RouteKey.includes('/inbound')));
    assert.ok(!Object.values(t.findResources('AWS::CloudWatch::Alarm')).some((a: any) => /inbound/.test(a.Properties.AlarmName)));
  });
});

describe('the shipped catalogs: WhatsApp takes inbound webhooks', () => {
  const t = synth({ catalogs: SHIPPED }).mcpT;
  it('the table, mcp-server\'s variables, GET and POST /inbound/{connector} and the alarm exist', () => {
    assert.ok(SHIPPED.some((c) => c.connector === 'whatsapp' && c.inbound));
    assert.ok(JSON.stringify(t.toJSON()).includes(TABLE));
    for (const name of Object.values(INBOUND_ENV)) assert.ok(name in env(t), name);
    assert.ok(routes(t).some((r) => r.RouteKey.includes('/inbound')));
    assert.ok(Object.values(t.findResources('AWS::CloudWatch::Alarm')).some((a: any) => /inbound/.test(a.Properties.AlarmName)));
  });
});

describe('a catalog declares inbound (tests/catalogs/inbound/chat.yaml)', () => {
  assert.equal(CHAT.inbound, true);
  const s = synth({ config: testConfig(), catalogs: [...CATALOGS, CHAT] });
  const t = s.mcpT;
  const tableId = logicalId(t, 'AWS::DynamoDB::Table', { TableName: TABLE });
  const keyId = Object.keys(t.findResources('AWS::KMS::Key'))[0]!;
  const role = Object.keys(t.findResources('AWS::IAM::Role')).find((id) => id.startsWith('McpServerRole'))!;

  it('creates the table with the keys the inbound code writes: pk (S), sk (S), TTL on expires_at, kept', () => {
    const r = t.toJSON().Resources[tableId];
    assert.deepEqual(r.Properties.KeySchema, [
      { AttributeName: INBOUND_TABLE_SCHEMA.partitionKey, KeyType: 'HASH' },
      { AttributeName: INBOUND_TABLE_SCHEMA.sortKey, KeyType: 'RANGE' },
    ]);
    assert.deepEqual(r.Properties.TimeToLiveSpecification, { AttributeName: 'expires_at', Enabled: true });
    assert.equal(r.Properties.BillingMode, 'PAY_PER_REQUEST');
    assert.equal(r.DeletionPolicy, 'Retain');
    t.resourceCountIs('AWS::KMS::Key', 1);
    assert.equal(t.toJSON().Resources[keyId].Properties.EnableKeyRotation, true);
    t.hasResourceProperties('AWS::KMS::Alias', { AliasName: 'alias/hosted-mcp-example-inbound' });
  });

  it('grants mcp-server PutItem and Query on the table, and data keys only with context `connector`; no other role', () => {
    const inbound = roleStatements(t, role).statements.filter((st) => st.sid?.startsWith('Inbound'));
    const expected: Statement[] = [
      {
        sid: 'InboundDataKeys',
        actions: ['kms:Decrypt', 'kms:GenerateDataKey'],
        resources: [`\${GetAtt:${keyId}.Arn}`],
        condition: {
          'ForAllValues:StringEquals': { 'kms:EncryptionContextKeys': [INBOUND_CONTEXT_KEY] },
          Null: { [`kms:EncryptionContext:${INBOUND_CONTEXT_KEY}`]: 'false' },
        },
      },
      { sid: 'InboundItems', actions: ['dynamodb:PutItem', 'dynamodb:Query'], resources: [`\${GetAtt:${tableId}.Arn}`] },
    ];
    assert.deepEqual(inbound, expected);
    for (const other of Object.keys(t.findResources('AWS::IAM::Role')).filter((id) => id !== role)) {
      const text = JSON.stringify(roleStatements(t, other).statements);
      assert.ok(!text.includes(tableId) && !text.includes(keyId), `${other}: ${text}`);
    }
  });

  it('sets MCP_INBOUND_TABLE and MCP_INBOUND_KEY_ID (the key ARN)', () => {
    const e = env(t);
    assert.deepEqual(e[INBOUND_ENV.inboundTable], { Ref: tableId });
    assert.deepEqual(e[INBOUND_ENV.inboundKeyId], { 'Fn::GetAtt': [keyId, 'Arn'] });
  });

  it('routes GET and POST /inbound/{connector} to mcp-server without an authorizer', () => {
    const inbound = routes(t).filter((r) => r.RouteKey.endsWith(INBOUND_PATH));
    assert.deepEqual(inbound.map((r) => r.RouteKey).sort(), [`GET ${INBOUND_PATH}`, `POST ${INBOUND_PATH}`]);
    for (const r of inbound) assert.ok(r.AuthorizationType === undefined || r.AuthorizationType === 'NONE', JSON.stringify(r));
  });

  it('alarms on refused inbound bodies through a metric filter on the audit log (event inbound, status not ok)', () => {
    const filters = Object.values(t.findResources('AWS::Logs::MetricFilter')).map((f: any) => f.Properties);
    const refused = filters.find((f) => f.MetricTransformations[0].MetricName === 'InboundRefused');
    assert.ok(refused, JSON.stringify(filters));
    assert.equal(refused.FilterPattern, '{ ($.event = "inbound") && ($.status != "ok") }');
    t.hasResourceProperties('AWS::CloudWatch::Alarm', {
      AlarmName: 'hosted-mcp-example-inbound-refused',
      MetricName: 'InboundRefused',
      Threshold: 10,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
    });
  });
});

describe('infra and the inbound code agree', () => {
  it('on the table keys, the TTL attribute, the encryption context key and the route', () => {
    const src = join(REPO_ROOT, 'functions/mcp-server/src');
    const consts = new Map<string, string>();
    for (const m of readFileSync(join(src, 'inbound/table.rs'), 'utf8').matchAll(/const (\w+): &str = "([^"]*)";/g)) consts.set(m[1]!, m[2]!);
    assert.equal(consts.get('PARTITION_KEY'), INBOUND_TABLE_SCHEMA.partitionKey);
    assert.equal(consts.get('SORT_KEY'), INBOUND_TABLE_SCHEMA.sortKey);
    assert.equal(consts.get('EXPIRES_AT'), INBOUND_TABLE_SCHEMA.ttlAttribute);
    assert.equal(consts.get('CONTEXT_KEY'), INBOUND_CONTEXT_KEY);
    assert.ok(readFileSync(join(src, 'http/mod.rs'), 'utf8').includes(`"${INBOUND_PATH}"`));
    const calls = readFileSync(join(src, 'inbound/table.rs'), 'utf8');
    assert.ok(calls.includes('.put_item()') && calls.includes('.query()') && !/\.(scan|delete_item|update_item)\(\)/.test(calls));
  });
});
