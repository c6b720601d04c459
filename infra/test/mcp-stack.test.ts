// The MCP stack: HTTP API → mcp-server, the audit log group, alarms and outputs.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Match } from 'aws-cdk-lib/assertions';
import { RustFunction } from 'cargo-lambda-cdk';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { LEDGER_TABLE_SCHEMA } from '../src/ledger.ts';
import { LIMITS_TABLE_SCHEMA } from '../src/limits.ts';
import { REPO_ROOT } from '../src/paths.ts';
import { CONNECTORS, flat, logicalId, synth, testConfig } from './helpers.ts';

const FN = 'hosted-mcp-example-mcp-server';

describe('mcp-server function', () => {
  const { mcp, mcpT: t } = synth();
  const fnId = logicalId(t, 'AWS::Lambda::Function', { FunctionName: FN });
  const fn = t.toJSON().Resources[fnId];

  it('is a cargo-lambda-cdk RustFunction (binary mcp-server of the workspace)', () => {
    assert.ok(mcp.fn instanceof RustFunction);
  });

  it('runs on arm64 provided.al2023 with the bootstrap handler', () => {
    t.hasResourceProperties('AWS::Lambda::Function', {
      FunctionName: FN,
      Runtime: 'provided.al2023',
      Architectures: ['arm64'],
      Handler: 'bootstrap',
    });
  });

  it('is sized 256 MB / 10 s by default (tests/bench sizes these) and follows the config', () => {
    assert.equal(fn.Properties.MemorySize, 256);
    assert.equal(fn.Properties.Timeout, 10);
    const bigger = synth({ config: testConfig({ mcpServer: { memoryMb: 512, timeoutSeconds: 20, reservedConcurrency: 10 } }) }).mcpT;
    bigger.hasResourceProperties('AWS::Lambda::Function', {
      FunctionName: FN, MemorySize: 512, Timeout: 20, ReservedConcurrentExecutions: 10,
    });
  });

  it('logs JSON into the audit log group, INFO and up (audit lines carry `level`)', () => {
    assert.deepEqual(fn.Properties.LoggingConfig, {
      LogFormat: 'JSON',
      ApplicationLogLevel: 'INFO',
      SystemLogLevel: 'INFO',
      LogGroup: { Ref: logicalId(t, 'AWS::Logs::LogGroup', { LogGroupName: '/hosted-mcp/example/mcp-server' }) },
    });
  });

  it('uses its own role with no managed policies', () => {
    const roleRef = flat(fn.Properties.Role);
    assert.match(roleRef, /^\$\{GetAtt:McpServerRole[0-9A-F]+\.Arn\}$/);
  });
});

describe('audit log group', () => {
  const { mcpT: t } = synth();
  it('has the configured retention and is kept when the stack is deleted', () => {
    t.hasResource('AWS::Logs::LogGroup', {
      Properties: { LogGroupName: '/hosted-mcp/example/mcp-server', RetentionInDays: 90 },
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
    });
    synth({ config: testConfig({ logRetentionDays: 365 }) }).mcpT.hasResourceProperties('AWS::Logs::LogGroup', {
      LogGroupName: '/hosted-mcp/example/mcp-server', RetentionInDays: 365,
    });
  });
  it('is the only log group (the function writes nowhere else)', () => {
    t.resourceCountIs('AWS::Logs::LogGroup', 1);
  });
});

describe('limits table', () => {
  const { mcp, mcpT: t } = synth();
  const table = (): any => t.toJSON().Resources[logicalId(t, 'AWS::DynamoDB::Table', { TableName: 'hosted-mcp-example-limits' })];

  it('is one table keyed by the string `pk` alone, on demand, expiring by `expires_at`', () => {
    // The limits table and the idempotency ledger.
    t.resourceCountIs('AWS::DynamoDB::Table', 2);
    const p = table().Properties;
    assert.deepEqual(p.KeySchema, [{ AttributeName: 'pk', KeyType: 'HASH' }]);
    assert.deepEqual(p.AttributeDefinitions, [{ AttributeName: 'pk', AttributeType: 'S' }]);
    assert.equal(p.BillingMode, 'PAY_PER_REQUEST');
    assert.equal(p.ProvisionedThroughput, undefined);
    assert.deepEqual(p.TimeToLiveSpecification, { AttributeName: 'expires_at', Enabled: true });
    assert.equal(p.GlobalSecondaryIndexes, undefined);
    assert.equal(p.StreamSpecification, undefined);
    assert.equal(p.PointInTimeRecoverySpecification, undefined, 'counters of one day: nothing to recover');
  });

  it('uses the key and TTL names mcp-server writes (functions/mcp-server/src/limits/table.rs)', (tc) => {
    const file = join(REPO_ROOT, 'functions/mcp-server/src/limits/table.rs');
    if (!existsSync(file)) {
      tc.skip(`${file} does not exist`);
      return;
    }
    const text = readFileSync(file, 'utf8');
    const value = (name: string): string | undefined => new RegExp(`pub(?:\\([a-z]+\\))? const ${name}: &str = "([^"]*)";`).exec(text)?.[1];
    assert.equal(value('KEY'), LIMITS_TABLE_SCHEMA.partitionKey);
    assert.equal(value('EXPIRES'), LIMITS_TABLE_SCHEMA.ttlAttribute);
    // The grant is UpdateItem only: the store (every file beside table.rs, and the /health probe
    // claims kept in the same table, src/probes.rs) issues UpdateItem, or TransactWriteItems of
    // Update actions (each authorized as UpdateItem), and nothing else.
    const dir = join(REPO_ROOT, 'functions/mcp-server/src/limits');
    const store = readdirSync(dir)
      .filter((f) => f.endsWith('.rs'))
      .map((f) => join(dir, f))
      .concat(join(REPO_ROOT, 'functions/mcp-server/src/probes.rs'))
      .map((f) => readFileSync(f, 'utf8'))
      .join('\n');
    const calls = [...store.matchAll(/\.(get_item|put_item|delete_item|query|scan|batch_\w+|transact_get_items)\(\)/g)].map((m) => m[1]);
    assert.deepEqual(calls, [], 'the limits store calls more than UpdateItem; widen the grant deliberately');
    const actions = [...store.matchAll(/\b(Put|Delete|ConditionCheck)::builder\(\)/g)].map((m) => m[1]);
    assert.deepEqual(actions, [], 'a transaction action other than Update needs its own grant');
  });

  it('goes with the stack: counters that expire within a day are not worth keeping (the audit log is)', () => {
    assert.equal(table().DeletionPolicy, 'Delete');
    assert.equal(table().UpdateReplacePolicy, 'Delete');
    assert.ok(mcp.limitsTable);
  });

  it('is left out with `mcpServer.limits.table: false` (every instance counts in memory)', () => {
    const off = synth({ config: testConfig({ mcpServer: { limits: { table: false } } }) });
    // The ledger stays: it has no in-memory fallback on Lambda.
    off.mcpT.resourceCountIs('AWS::DynamoDB::Table', 1);
    logicalId(off.mcpT, 'AWS::DynamoDB::Table', { TableName: 'hosted-mcp-example-ledger' });
    assert.equal(off.mcp.limitsTable, undefined);
  });
});

describe('idempotency ledger', () => {
  const { mcp, mcpT: t } = synth();
  const table = (): any => t.toJSON().Resources[logicalId(t, 'AWS::DynamoDB::Table', { TableName: 'hosted-mcp-example-ledger' })];

  it('is keyed by the string `pk` alone, on demand, expiring by `expires_at`', () => {
    const p = table().Properties;
    assert.deepEqual(p.KeySchema, [{ AttributeName: 'pk', KeyType: 'HASH' }]);
    assert.deepEqual(p.AttributeDefinitions, [{ AttributeName: 'pk', AttributeType: 'S' }]);
    assert.equal(p.BillingMode, 'PAY_PER_REQUEST');
    assert.equal(p.ProvisionedThroughput, undefined);
    assert.deepEqual(p.TimeToLiveSpecification, { AttributeName: 'expires_at', Enabled: true });
    assert.equal(p.GlobalSecondaryIndexes, undefined);
    assert.equal(p.LocalSecondaryIndexes, undefined);
    assert.equal(p.StreamSpecification, undefined);
    assert.ok(mcp.ledgerTable);
  });

  it('is kept when the stack is deleted or the table replaced, and protected against deletion (it records which writes already happened)', () => {
    assert.equal(table().DeletionPolicy, 'Retain');
    assert.equal(table().UpdateReplacePolicy, 'Retain');
    assert.equal(table().Properties.DeletionProtectionEnabled, true);
  });

  // Issue 23, finding 10: with recovery on by default, recorded results (personal data) stayed
  // restorable for 35 days, not the 24 h an entry lives.
  it('has point-in-time recovery off by default: a recorded result is gone once its entry is', () => {
    assert.deepEqual(table().Properties.PointInTimeRecoverySpecification, { PointInTimeRecoveryEnabled: false });
    for (const example of ['example.json', 'example-oauth.json']) {
      const raw = JSON.parse(readFileSync(join(REPO_ROOT, 'infra', 'config', example), 'utf8'));
      assert.equal(raw.ledger, undefined, `${example} turns recovery on without saying so in the README`);
    }
  });

  it('turns point-in-time recovery on only with a stated recovery period (ledger.pointInTimeRecoveryDays, 1–35)', () => {
    const s = synth({ config: testConfig({ ledger: { pointInTimeRecoveryDays: 2 } }) });
    const p = s.mcpT.toJSON().Resources[logicalId(s.mcpT, 'AWS::DynamoDB::Table', { TableName: 'hosted-mcp-example-ledger' })].Properties;
    assert.deepEqual(p.PointInTimeRecoverySpecification, { PointInTimeRecoveryEnabled: true, RecoveryPeriodInDays: 2 });
    for (const days of [0, 36, 1.5, 'week']) {
      assert.throws(() => testConfig({ ledger: { pointInTimeRecoveryDays: days } }), /ledger\.pointInTimeRecoveryDays: expected an integer from 1 to 35/);
    }
  });

  it('exists whatever the configuration (no switch: without it a write could run twice)', () => {
    for (const config of [testConfig({ mcpServer: { limits: { table: false } } }), testConfig({ oauth: { cognito: { domainPrefix: 'example-mcp' }, frontDoor: 'api-gateway' } })]) {
      const s = synth({ config });
      assert.ok(s.mcp.ledgerTable);
      logicalId(s.mcpT, 'AWS::DynamoDB::Table', { TableName: 'hosted-mcp-example-ledger' });
    }
  });

  it('uses the key and TTL names mcp-server writes, and only the item requests it is granted (functions/mcp-server/src/call/ledger/table.rs)', (tc) => {
    const file = join(REPO_ROOT, 'functions/mcp-server/src/call/ledger/table.rs');
    if (!existsSync(file)) {
      tc.skip(`${file} does not exist`);
      return;
    }
    const text = readFileSync(file, 'utf8');
    const value = (name: string): string | undefined => new RegExp(`pub(?:\\([a-z]+\\))? const ${name}: &str = "([^"]*)";`).exec(text)?.[1];
    assert.equal(value('KEY'), LEDGER_TABLE_SCHEMA.partitionKey);
    assert.equal(value('EXPIRES'), LEDGER_TABLE_SCHEMA.ttlAttribute);
    // The grant is PutItem, UpdateItem and DeleteItem: the ledger must issue nothing else.
    const calls = [...new Set([...text.matchAll(/\.(get_item|put_item|update_item|delete_item|query|scan|batch_\w+|transact_\w+)\(\)/g)].map((m) => m[1]))].sort();
    assert.deepEqual(calls, ['delete_item', 'put_item', 'update_item'], 'the ledger calls other DynamoDB requests than its grant; change the grant deliberately');
  });
});

describe('HTTP API', () => {
  const { mcpT: t } = synth();
  const fnId = logicalId(t, 'AWS::Lambda::Function', { FunctionName: FN });

  it('is an HTTP API routing /mcp and /mcp/{profile} (any method), GET /connectors and GET /health to mcp-server, payload 2.0', () => {
    t.resourceCountIs('AWS::ApiGatewayV2::Api', 1);
    t.hasResourceProperties('AWS::ApiGatewayV2::Api', { ProtocolType: 'HTTP' });
    const routes = Object.values(t.findResources('AWS::ApiGatewayV2::Route')).map((r: any) => r.Properties.RouteKey).sort();
    assert.deepEqual(routes, ['ANY /mcp', 'ANY /mcp/{profile}', 'GET /connectors', 'GET /health']);
    t.hasResourceProperties('AWS::ApiGatewayV2::Integration', {
      IntegrationType: 'AWS_PROXY',
      PayloadFormatVersion: '2.0',
      IntegrationUri: { 'Fn::GetAtt': [fnId, 'Arn'] },
    });
  });

  it('has one auto-deployed $default stage with the configured throttling', () => {
    t.resourceCountIs('AWS::ApiGatewayV2::Stage', 1);
    t.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      StageName: '$default',
      AutoDeploy: true,
      DefaultRouteSettings: { ThrottlingRateLimit: 50, ThrottlingBurstLimit: 100 },
    });
    synth({ config: testConfig({ throttle: { rateLimit: 5, burstLimit: 7 } }) }).mcpT.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      DefaultRouteSettings: { ThrottlingRateLimit: 5, ThrottlingBurstLimit: 7 },
    });
  });

  it('lets only this API invoke the function', () => {
    const perms = Object.values(t.findResources('AWS::Lambda::Permission')) as any[];
    assert.ok(perms.length > 0);
    for (const p of perms) {
      assert.equal(p.Properties.Principal, 'apigateway.amazonaws.com');
      assert.match(flat(p.Properties.SourceArn), /:execute-api:eu-central-1:\$\{AWS::AccountId\}:\$\{Ref:HttpApi[0-9A-F]+\}\//);
    }
  });
});

describe('custom domain', () => {
  it('maps the configured domain to the stage, with the certificate and an alias record', () => {
    const { mcpT: t } = synth();
    t.hasResourceProperties('AWS::ApiGatewayV2::DomainName', {
      DomainName: 'mcp.example.com',
      DomainNameConfigurations: [Match.objectLike({
        CertificateArn: 'arn:aws:acm:eu-central-1:123456789012:certificate/00000000-0000-0000-0000-000000000000',
        EndpointType: 'REGIONAL',
      })],
    });
    const mappings = Object.values(t.findResources('AWS::ApiGatewayV2::ApiMapping')) as any[];
    assert.equal(mappings.length, 1);
    const mapping = mappings[0];
    assert.equal(mapping.Properties.Stage, '$default');
    assert.match(flat(mapping.Properties.DomainName), /^\$\{Ref:CustomDomain/);
    // Created after the stage it names.
    assert.deepEqual(mapping.DependsOn, [logicalId(t, 'AWS::ApiGatewayV2::Stage', { StageName: '$default' })]);
    t.hasResourceProperties('AWS::Route53::RecordSet', { Name: 'mcp.example.com.', Type: 'A', HostedZoneId: 'Z0123456789ABCDEFGHIJ' });
  });

  it('is optional: without it there is no domain, mapping or record, and the URL is the execute-api one', () => {
    const { mcpT: t } = synth({ config: testConfig({ customDomain: undefined }) });
    t.resourceCountIs('AWS::ApiGatewayV2::DomainName', 0);
    t.resourceCountIs('AWS::ApiGatewayV2::ApiMapping', 0);
    t.resourceCountIs('AWS::Route53::RecordSet', 0);
    const url = flat(t.toJSON().Outputs.McpUrl.Value);
    assert.match(url, /^https:\/\/\$\{Ref:HttpApi[0-9A-F]+\}\.execute-api\.eu-central-1\.\$\{AWS::URLSuffix\}\/mcp$/);
  });

  it('creates no DNS record when no hosted zone is given', () => {
    const { mcpT: t } = synth({ config: testConfig({ customDomain: { hostedZone: undefined } }) });
    t.resourceCountIs('AWS::ApiGatewayV2::DomainName', 1);
    t.resourceCountIs('AWS::Route53::RecordSet', 0);
  });

  it('puts the API Gateway host, the custom domain and extra hosts into MCP_ALLOWED_HOSTS', () => {
    const { mcpT: t } = synth({ config: testConfig({ allowedHosts: ['mcp.internal.example.com'] }) });
    const env = t.toJSON().Resources[logicalId(t, 'AWS::Lambda::Function', { FunctionName: FN })].Properties.Environment.Variables;
    const hosts = flat(env.MCP_ALLOWED_HOSTS).split(',');
    assert.equal(hosts.length, 3);
    assert.match(hosts[0]!, /^\$\{Ref:HttpApi[0-9A-F]+\}\.execute-api\.eu-central-1\.\$\{AWS::URLSuffix\}$/);
    assert.deepEqual(hosts.slice(1), ['mcp.example.com', 'mcp.internal.example.com']);
  });
});

describe('deployment secret', () => {
  it('is referenced, not created', () => {
    const { mcpT, opsT } = synth();
    mcpT.resourceCountIs('AWS::SecretsManager::Secret', 0);
    opsT.resourceCountIs('AWS::SecretsManager::Secret', 0);
  });
});

describe('alarms', () => {
  const { mcpT: t } = synth();
  const fnId = logicalId(t, 'AWS::Lambda::Function', { FunctionName: FN });
  const opsTopic = 'arn:aws:sns:eu-central-1:${AWS::AccountId}:hosted-mcp-example-ops';
  const alarms = Object.values(t.findResources('AWS::CloudWatch::Alarm')).map((a: any) => a.Properties);
  const byName = (name: string): any => {
    const a = alarms.find((x) => x.AlarmName === `hosted-mcp-example-${name}`);
    assert.ok(a, `no alarm ${name}; have ${alarms.map((x) => x.AlarmName).join(', ')}`);
    return a;
  };

  it('all notify the ops topic and treat missing data as OK', () => {
    // Eight for the deployment; per catalog connector a tool-latency and an upstream-429 alarm.
    assert.equal(alarms.length, 8 + 2 * CONNECTORS.length);
    for (const a of alarms) {
      assert.deepEqual(a.AlarmActions.map(flat), [opsTopic], a.AlarmName);
      assert.equal(a.TreatMissingData, 'notBreaching', a.AlarmName);
    }
  });

  const cases: [string, Record<string, unknown>][] = [
    ['mcp-server-errors', { Namespace: 'AWS/Lambda', MetricName: 'Errors', Statistic: 'Sum', Period: 300, Threshold: 1, EvaluationPeriods: 1, ComparisonOperator: 'GreaterThanOrEqualToThreshold' }],
    ['mcp-server-throttles', { Namespace: 'AWS/Lambda', MetricName: 'Throttles', Statistic: 'Sum', Period: 300, Threshold: 1, EvaluationPeriods: 1, ComparisonOperator: 'GreaterThanOrEqualToThreshold' }],
    ['mcp-server-duration-p99', { Namespace: 'AWS/Lambda', MetricName: 'Duration', ExtendedStatistic: 'p99', Period: 300, Threshold: 8000, EvaluationPeriods: 3, DatapointsToAlarm: 2, ComparisonOperator: 'GreaterThanThreshold' }],
    ['api-5xx', { Namespace: 'AWS/ApiGateway', MetricName: '5xx', Statistic: 'Sum', Period: 300, Threshold: 5, EvaluationPeriods: 1, ComparisonOperator: 'GreaterThanOrEqualToThreshold' }],
    ['auth-denied-spike', { Namespace: 'HostedMcp', MetricName: 'AuthDenied', Statistic: 'Sum', Period: 300, Threshold: 20, EvaluationPeriods: 1, ComparisonOperator: 'GreaterThanOrEqualToThreshold' }],
    // The limiter's EMF metrics carry no dimensions (Dimensions [[]]).
    ['limiter-fallback', { Namespace: 'HostedMcp', MetricName: 'limiter_fallback', Statistic: 'Maximum', Period: 300, Threshold: 1, EvaluationPeriods: 1, ComparisonOperator: 'GreaterThanOrEqualToThreshold', Dimensions: undefined }],
    ['daily-calls-used', { Namespace: 'HostedMcp', MetricName: 'daily_calls_used_pct', Statistic: 'Maximum', Period: 300, Threshold: 80, EvaluationPeriods: 1, ComparisonOperator: 'GreaterThanOrEqualToThreshold', Dimensions: undefined }],
    // The metric filter on audit lines of writes with idempotency `unknown`: one is worth a look.
    ['outcome-unknown', { Namespace: 'HostedMcp', MetricName: 'OutcomeUnknown', Statistic: 'Sum', Period: 300, Threshold: 1, EvaluationPeriods: 1, ComparisonOperator: 'GreaterThanOrEqualToThreshold', Dimensions: undefined }],
    // The EMF duration_ms mcp-server publishes per connector (shared/audit/src/emf.rs), p95.
    ...CONNECTORS.map((c): [string, Record<string, unknown>] => [`tool-latency-p95-${c}`, {
      Namespace: 'HostedMcp', MetricName: 'duration_ms', ExtendedStatistic: 'p95', Statistic: undefined, Dimensions: [{ Name: 'connector', Value: c }],
      Period: 300, Threshold: 3000, EvaluationPeriods: 3, DatapointsToAlarm: 2, ComparisonOperator: 'GreaterThanThreshold',
    }]),
    // The metric filter on audit lines of calls an upstream refused with 429, per connector.
    ...CONNECTORS.map((c): [string, Record<string, unknown>] => [`upstream-rate-limited-${c}`, {
      Namespace: 'HostedMcp', MetricName: 'UpstreamRateLimited', Statistic: 'Sum', Dimensions: [{ Name: 'connector', Value: c }],
      Period: 300, Threshold: 5, EvaluationPeriods: 1, ComparisonOperator: 'GreaterThanOrEqualToThreshold',
    }]),
  ];
  for (const [name, expected] of cases) {
    it(`${name}: ${JSON.stringify(expected)}`, () => {
      const a = byName(name);
      for (const [k, v] of Object.entries(expected)) assert.deepEqual(a[k], v, `${name}.${k}`);
      assert.ok(a.AlarmDescription, 'says what to look at');
    });
  }

  it('watch this function and this API', () => {
    for (const name of ['mcp-server-errors', 'mcp-server-throttles', 'mcp-server-duration-p99']) {
      assert.deepEqual(byName(name).Dimensions, [{ Name: 'FunctionName', Value: { Ref: fnId } }]);
    }
    assert.match(flat(byName('api-5xx').Dimensions[0].Value), /^\$\{Ref:HttpApi/);
    assert.equal(byName('api-5xx').Dimensions[0].Name, 'ApiId');
  });

  it('take their thresholds from the config (duration p99 defaults to 80 % of the timeout)', () => {
    const t2 = synth({ config: testConfig({ mcpServer: { timeoutSeconds: 20 }, alarms: { lambdaErrors: 3, api5xx: 10, authDenied: 50, dailyCallsUsedPct: 90, toolLatencyP95Ms: 5000, outcomeUnknown: 3, upstreamRateLimited: 12 } }) }).mcpT;
    const got = Object.fromEntries(Object.values(t2.findResources('AWS::CloudWatch::Alarm')).map((a: any) => [a.Properties.AlarmName, a.Properties.Threshold]));
    assert.deepEqual(got, {
      'hosted-mcp-example-mcp-server-errors': 3,
      'hosted-mcp-example-mcp-server-throttles': 1,
      'hosted-mcp-example-mcp-server-duration-p99': 16000,
      'hosted-mcp-example-api-5xx': 10,
      'hosted-mcp-example-auth-denied-spike': 50,
      'hosted-mcp-example-limiter-fallback': 1,
      'hosted-mcp-example-daily-calls-used': 90,
      'hosted-mcp-example-outcome-unknown': 3,
      ...Object.fromEntries(CONNECTORS.map((c) => [`hosted-mcp-example-tool-latency-p95-${c}`, 5000])),
      ...Object.fromEntries(CONNECTORS.map((c) => [`hosted-mcp-example-upstream-rate-limited-${c}`, 12])),
    });
  });

  it('on the limiter exist only with something to watch: a table to fall back from, a daily cap', () => {
    const names = (config: Parameters<typeof testConfig>[0]): string[] =>
      Object.values(synth({ config: testConfig(config) }).mcpT.findResources('AWS::CloudWatch::Alarm')).map((a: any) => a.Properties.AlarmName);
    const noTable = names({ mcpServer: { limits: { table: false } } });
    assert.ok(!noTable.includes('hosted-mcp-example-limiter-fallback') && noTable.includes('hosted-mcp-example-daily-calls-used'), noTable.join());
    const noCap = names({ mcpServer: { limits: { dailyCalls: 0 } } });
    assert.ok(noCap.includes('hosted-mcp-example-limiter-fallback') && !noCap.includes('hosted-mcp-example-daily-calls-used'), noCap.join());
  });

  it('on tool latency: the default 3000 ms stays under a short timeout, and the namespace is the configured one', () => {
    const t2 = synth({ config: testConfig({ mcpServer: { timeoutSeconds: 2 }, metricsNamespace: 'HostedMcp/example' }) }).mcpT;
    const latency = Object.values(t2.findResources('AWS::CloudWatch::Alarm')).map((a: any) => a.Properties)
      .filter((a) => a.MetricName === 'duration_ms');
    assert.equal(latency.length, CONNECTORS.length);
    for (const a of latency) {
      assert.equal(a.Threshold, 2000, a.AlarmName);
      assert.equal(a.Namespace, 'HostedMcp/example', a.AlarmName);
      assert.match(a.AlarmDescription, /queries\/tool-latency\.insights/);
    }
  });

  it('on the limiter use the configured metrics namespace, like MCP_EMF_NAMESPACE', () => {
    const t2 = synth({ config: testConfig({ metricsNamespace: 'HostedMcp/example' }) }).mcpT;
    const limiter = Object.values(t2.findResources('AWS::CloudWatch::Alarm')).map((a: any) => a.Properties)
      .filter((a) => ['limiter_fallback', 'daily_calls_used_pct'].includes(a.MetricName));
    assert.equal(limiter.length, 2);
    for (const a of limiter) assert.equal(a.Namespace, 'HostedMcp/example', a.AlarmName);
  });
});

describe('metric filters on the audit log', () => {
  const { mcpT: t } = synth();
  const filters = Object.values(t.findResources('AWS::Logs::MetricFilter')).map((f: any) => f.Properties);
  const byMetric = (name: string): any => filters.find((f) => f.MetricTransformations[0].MetricName === name);

  it('count auth_denied audit events (the `event` field of shared/audit)', () => {
    const f = byMetric('AuthDenied');
    assert.equal(f.FilterPattern, '{ $.event = "auth_denied" }');
    assert.deepEqual(f.MetricTransformations[0], { MetricName: 'AuthDenied', MetricNamespace: 'HostedMcp', MetricValue: '1', DefaultValue: 0, Unit: 'Count' });
  });

  it('count write calls whose outcome is unknown (the `idempotency` field of shared/audit)', () => {
    const f = byMetric('OutcomeUnknown');
    assert.equal(f.FilterPattern, '{ $.idempotency = "unknown" }');
    assert.deepEqual(f.MetricTransformations[0], { MetricName: 'OutcomeUnknown', MetricNamespace: 'HostedMcp', MetricValue: '1', DefaultValue: 0, Unit: 'Count' });
    const fields = readFileSync(join(REPO_ROOT, 'shared/audit/src/fields.rs'), 'utf8');
    assert.match(fields, /pub const IDEMPOTENCY: &str = "idempotency";/);
  });

  it('count calls an upstream refused with 429 per connector (not the server\'s own limits, which send no http_status)', () => {
    const f = byMetric('UpstreamRateLimited');
    assert.equal(f.FilterPattern, '{ ($.status = "rate_limited") && ($.http_status = 429) }');
    assert.deepEqual(f.MetricTransformations[0], {
      MetricName: 'UpstreamRateLimited', MetricNamespace: 'HostedMcp', MetricValue: '1', Unit: 'Count', Dimensions: [{ Key: 'connector', Value: '$.connector' }],
    });
    const fields = readFileSync(join(REPO_ROOT, 'shared/audit/src/fields.rs'), 'utf8');
    for (const f of ['STATUS: &str = "status"', 'HTTP_STATUS: &str = "http_status"', 'CONNECTOR: &str = "connector"']) assert.ok(fields.includes(f), f);
  });

  it('count failed tool calls per connector and status (the statuses the digest and the errors metric count as failed)', () => {
    const f = byMetric('ToolFailures');
    assert.equal(
      f.FilterPattern,
      '{ (($.event = "tool_call") || ($.event = "tool_error")) && ($.connector = "*") && ($.status = "*") && ($.status != "ok") && ($.status != "confirmation_required") && ($.status != "pending") }',
    );
    assert.deepEqual(f.MetricTransformations[0], {
      MetricName: 'ToolFailures', MetricNamespace: 'HostedMcp', MetricValue: '1', Unit: 'Count',
      Dimensions: [{ Key: 'connector', Value: '$.connector' }, { Key: 'status', Value: '$.status' }],
    });
    // The statuses the digest's failure queries leave out are the ones the filter leaves out.
    const totals = readFileSync(join(REPO_ROOT, 'queries/tool-totals.insights'), 'utf8');
    assert.match(totals, /sum\(status != "ok" and status != "confirmation_required" and status != "pending"\) as errors/);
  });

  it('count cold starts and their init duration from platform.report records', () => {
    const pattern = '{ ($.type = "platform.report") && ($.record.metrics.initDurationMs > 0) }';
    assert.equal(byMetric('ColdStarts').FilterPattern, pattern);
    assert.equal(byMetric('InitDurationMs').FilterPattern, pattern);
    assert.equal(byMetric('InitDurationMs').MetricTransformations[0].MetricValue, '$.record.metrics.initDurationMs');
  });

  it('all read the audit log group', () => {
    const lg = logicalId(t, 'AWS::Logs::LogGroup', { LogGroupName: '/hosted-mcp/example/mcp-server' });
    assert.equal(filters.length, 6);
    for (const f of filters) assert.deepEqual(f.LogGroupName, { Ref: lg });
  });

  it('use the configured metrics namespace, like MCP_EMF_NAMESPACE', () => {
    const t2 = synth({ config: testConfig({ metricsNamespace: 'HostedMcp/example' }) }).mcpT;
    for (const f of Object.values(t2.findResources('AWS::Logs::MetricFilter')) as any[]) {
      assert.equal(f.Properties.MetricTransformations[0].MetricNamespace, 'HostedMcp/example');
    }
    const env = t2.toJSON().Resources[logicalId(t2, 'AWS::Lambda::Function', { FunctionName: FN })].Properties.Environment.Variables;
    assert.equal(env.MCP_EMF_NAMESPACE, 'HostedMcp/example');
  });
});

describe('outputs', () => {
  it('give the MCP URL (custom domain when there is one), the API endpoint, the audit log group and the dashboard', () => {
    const { mcpT: t } = synth();
    const out = t.toJSON().Outputs;
    assert.equal(out.McpUrl.Value, 'https://mcp.example.com/mcp');
    assert.match(flat(out.ApiEndpoint.Value), /^https:\/\/\$\{Ref:HttpApi[0-9A-F]+\}\.execute-api\.eu-central-1\.\$\{AWS::URLSuffix\}\/$/);
    assert.equal(flat(out.AuditLogGroup.Value), '${Ref:' + logicalId(t, 'AWS::Logs::LogGroup', { LogGroupName: '/hosted-mcp/example/mcp-server' }) + '}');
    assert.ok(out.DashboardName);
  });
});

describe('stacks', () => {
  it('are named per stage, in the configured region, and the MCP stack deploys after the ops stack', () => {
    const { ops, mcp } = synth();
    assert.equal(ops.stackName, 'hosted-mcp-example-ops');
    assert.equal(mcp.stackName, 'hosted-mcp-example-mcp');
    assert.equal(mcp.region, 'eu-central-1');
    assert.deepEqual(mcp.dependencies.map((d) => d.stackName), ['hosted-mcp-example-ops']);
    assert.deepEqual(ops.dependencies, []);
  });

  it('need no CloudFormation exports between them', () => {
    const { opsT, mcpT } = synth();
    for (const t of [opsT, mcpT]) {
      for (const o of Object.values(t.toJSON().Outputs ?? {}) as any[]) assert.equal(o.Export, undefined);
      assert.ok(!JSON.stringify(t.toJSON()).includes('Fn::ImportValue'));
    }
  });
});
