// Least privilege: every role's complete permission set, compared one to one with what the design
// names. A wider grant (another action, a broader resource, a managed policy) fails here.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Template } from 'aws-cdk-lib/assertions';
import { type Statement, flat, logicalId, roleStatements, synth, testConfig } from './helpers.ts';

const ACCOUNT = '${AWS::AccountId}';
const AUDIT_LOG = '/hosted-mcp/example/mcp-server';
const AUDIT_ARNS = [
  `arn:aws:logs:eu-central-1:${ACCOUNT}:log-group:${AUDIT_LOG}`,
  `arn:aws:logs:eu-central-1:${ACCOUNT}:log-group:${AUDIT_LOG}:*`,
];
const SECRET_ARN = `arn:aws:secretsmanager:eu-central-1:${ACCOUNT}:secret:hosted-mcp/example-??????`;
const QUOTA_LOG = '/hosted-mcp/example/quota-alarm';
const QUOTA_LOG_ARNS = [
  `arn:aws:logs:eu-central-1:${ACCOUNT}:log-group:${QUOTA_LOG}`,
  `arn:aws:logs:eu-central-1:${ACCOUNT}:log-group:${QUOTA_LOG}:*`,
];

const roleId = (t: Template, prefix: string): string => {
  const ids = Object.keys(t.findResources('AWS::IAM::Role')).filter((id) => id.startsWith(prefix));
  assert.equal(ids.length, 1, `one role ${prefix}*: ${ids.join(', ')}`);
  return ids[0]!;
};
const ref = (id: string): string => `\${Ref:${id}}`;
const arn = (id: string): string => `\${GetAtt:${id}.Arn}`;
const sorted = (s: Statement[]): Statement[] => s.sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
const trust = (t: Template, id: string): unknown[] => t.toJSON().Resources[id].Properties.AssumeRolePolicyDocument.Statement;

describe('mcp-server role', () => {
  const { mcpT: t } = synth();
  const role = roleId(t, 'McpServerRole');

  it('is the only role in the MCP stack, assumable by Lambda only', () => {
    assert.equal(Object.keys(t.findResources('AWS::IAM::Role')).length, 1);
    assert.deepEqual(trust(t, role), [{ Action: 'sts:AssumeRole', Effect: 'Allow', Principal: { Service: 'lambda.amazonaws.com' } }]);
  });

  const logGroup = (tt: Template): Statement =>
    ({ sid: 'WriteOwnLogGroup', actions: ['logs:CreateLogStream', 'logs:PutLogEvents'], resources: [arn(logicalId(tt, 'AWS::Logs::LogGroup', { LogGroupName: AUDIT_LOG }))] });
  const secret: Statement = { sid: 'ReadDeploymentSecret', actions: ['secretsmanager:GetSecretValue'], resources: [SECRET_ARN] };

  // The ledger's three item requests (claim, record, release) and a task's read on its table
  // alone: no Query or Scan, no index ARNs.
  const ledger = (tt: Template): Statement => ({
    sid: 'IdempotencyLedger',
    actions: ['dynamodb:DeleteItem', 'dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'],
    resources: [arn(logicalId(tt, 'AWS::DynamoDB::Table', { TableName: 'hosted-mcp-example-ledger' }))],
  });

  it('may write its log group, read the one deployment secret (GetSecretValue only), UpdateItem the limits table and Put/Get/Update/DeleteItem the ledger (and its tasks), nothing else', () => {
    const { statements, managed } = roleStatements(t, role);
    assert.deepEqual(managed, []);
    const table = logicalId(t, 'AWS::DynamoDB::Table', { TableName: 'hosted-mcp-example-limits' });
    assert.deepEqual(statements, sorted([
      secret,
      logGroup(t),
      // The limiter's one request: a conditional UpdateItem; no reads, no index ARNs, no other table.
      { sid: 'CountLimits', actions: ['dynamodb:UpdateItem'], resources: [arn(table)] },
      ledger(t),
    ]));
  });

  it('keeps the ledger grant, and only that DynamoDB grant, when the limits table is off', () => {
    const off = synth({ config: testConfig({ mcpServer: { limits: { table: false } } }) }).mcpT;
    const { statements } = roleStatements(off, roleId(off, 'McpServerRole'));
    assert.deepEqual(statements, sorted([secret, logGroup(off), ledger(off)]));
  });
});

describe('ops roles', () => {
  const { opsT: t } = synth();
  const dlq = (binary: string): string => arn(logicalId(t, 'AWS::SQS::Queue', { QueueName: `hosted-mcp-example-${binary}-dlq` }));
  const log = (binary: string): string => arn(logicalId(t, 'AWS::Logs::LogGroup', { LogGroupName: `/hosted-mcp/example/${binary}` }));
  const insights: Statement[] = [
    { sid: 'QueryAuditLogs', actions: ['logs:GetQueryResults', 'logs:StartQuery'], resources: AUDIT_ARNS },
    // StopQuery has no resource-level permissions in IAM: `*` is the only statement that matches.
    { sid: 'StopOwnQueries', actions: ['logs:StopQuery'], resources: ['*'] },
  ];

  it('tool-error-digest: Insights on the audit log group, sending as the sender identity only, its log group, its DLQ', () => {
    const role = roleId(t, 'DigestRole');
    const { statements, managed } = roleStatements(t, role);
    assert.deepEqual(managed, []);
    const identity = ref(logicalId(t, 'AWS::SES::EmailIdentity'));
    assert.deepEqual(statements, sorted([
      ...insights,
      // SES v2 SendEmail with raw MIME content is authorized as ses:SendRawEmail.
      { sid: 'SendDigest', actions: ['ses:SendEmail', 'ses:SendRawEmail'], resources: [`arn:aws:ses:eu-central-1:${ACCOUNT}:identity/${identity}`] },
      { sid: 'WriteOwnLogGroup', actions: ['logs:CreateLogStream', 'logs:PutLogEvents'], resources: [log('tool-error-digest')] },
      { sid: 'DeadLetterFailedRuns', actions: ['sqs:SendMessage'], resources: [dlq('tool-error-digest')] },
    ]));
  });

  it('quota-alarm: Insights on the audit log group and its own, the one deployment secret (GetSecretValue only), its log group, its DLQ', () => {
    const role = roleId(t, 'QuotaAlarmRole');
    const { statements, managed } = roleStatements(t, role);
    assert.deepEqual(managed, []);
    assert.deepEqual(statements, sorted([
      // Its own log group too: the next run reads the quota_probe lines the last one wrote there.
      { sid: 'QueryAuditLogs', actions: ['logs:GetQueryResults', 'logs:StartQuery'], resources: [...AUDIT_ARNS, ...QUOTA_LOG_ARNS].sort() },
      { sid: 'StopOwnQueries', actions: ['logs:StopQuery'], resources: ['*'] },
      // The upstream probe uses the connector's credentials from the secret mcp-server reads.
      { sid: 'ReadDeploymentSecret', actions: ['secretsmanager:GetSecretValue'], resources: [SECRET_ARN] },
      { sid: 'WriteOwnLogGroup', actions: ['logs:CreateLogStream', 'logs:PutLogEvents'], resources: [log('quota-alarm')] },
      { sid: 'DeadLetterFailedRuns', actions: ['sqs:SendMessage'], resources: [dlq('quota-alarm')] },
    ]));
  });

  it('quota-alarm: the secret grant is the same statement as mcp-server\'s', () => {
    const { mcpT } = synth();
    const read = (tt: Template, prefix: string): Statement[] =>
      roleStatements(tt, roleId(tt, prefix)).statements.filter((x) => x.actions.some((a) => a.startsWith('secretsmanager:') || a.startsWith('kms:')));
    assert.deepEqual(read(t, 'QuotaAlarmRole'), read(mcpT, 'McpServerRole'));
  });

  it('schedulers: invoke their one function and write its DLQ, assumable by this account\'s scheduler only', () => {
    const schedules = (Object.values(t.findResources('AWS::Scheduler::Schedule')) as any[]).map((s) => s.Properties);
    assert.equal(schedules.length, 2);
    for (const s of schedules) {
      const roleArn = flat(s.Target.RoleArn);
      const role = /^\$\{GetAtt:(.+)\.Arn\}$/.exec(roleArn)![1]!;
      const fn = flat(s.Target.Arn);
      const binary = (s.Name as string).replace('hosted-mcp-example-', '');
      const { statements, managed } = roleStatements(t, role);
      assert.deepEqual(managed, []);
      assert.deepEqual(statements, sorted([
        { actions: ['lambda:InvokeFunction'], resources: [fn, `${fn}:*`].sort() },
        { actions: ['sqs:SendMessage'], resources: [dlq(binary)] },
      ]));
      const [stmt] = trust(t, role) as any[];
      assert.deepEqual(stmt.Principal, { Service: 'scheduler.amazonaws.com' });
      assert.deepEqual(stmt.Condition.StringEquals['aws:SourceAccount'], { Ref: 'AWS::AccountId' });
    }
  });

  it('lambda roles are assumable by Lambda only', () => {
    for (const prefix of ['DigestRole', 'QuotaAlarmRole']) {
      assert.deepEqual(trust(t, roleId(t, prefix)), [{ Action: 'sts:AssumeRole', Effect: 'Allow', Principal: { Service: 'lambda.amazonaws.com' } }]);
    }
  });
});

describe('no wider than stated, anywhere', () => {
  const { opsT, mcpT } = synth();
  for (const [name, t] of [['ops', opsT], ['mcp', mcpT]] as const) {
    it(`${name} stack: no managed policies, no wildcard actions, "*" only for logs:StopQuery`, () => {
      t.resourceCountIs('AWS::IAM::ManagedPolicy', 0);
      t.resourceCountIs('AWS::IAM::User', 0);
      for (const id of Object.keys(t.findResources('AWS::IAM::Role'))) {
        const { statements, managed } = roleStatements(t, id);
        assert.deepEqual(managed, [], id);
        for (const s of statements) {
          for (const a of s.actions) assert.ok(!a.includes('*'), `${id}: wildcard action ${a}`);
          if (s.resources.includes('*')) assert.deepEqual(s.actions, ['logs:StopQuery'], `${id}: * resource`);
        }
      }
    });
  }
});

describe('secret variants (mcp-server and quota-alarm are the readers)', () => {
  const readers = (s: ReturnType<typeof synth>): [string, Template, string][] => [
    ['mcp-server', s.mcpT, 'McpServerRole'],
    ['quota-alarm', s.opsT, 'QuotaAlarmRole'],
  ];

  it('a full secret ARN is granted exactly', () => {
    const full = 'arn:aws:secretsmanager:eu-central-1:123456789012:secret:hosted-mcp/prod-AbC123';
    for (const [name, t, prefix] of readers(synth({ config: testConfig({ secretId: full }) }))) {
      const s = roleStatements(t, roleId(t, prefix)).statements.filter((x) => x.actions.some((a) => a.startsWith('secretsmanager:')));
      assert.deepEqual(s, [{ sid: 'ReadDeploymentSecret', actions: ['secretsmanager:GetSecretValue'], resources: [full] }], name);
    }
  });

  it('a customer-managed key adds kms:Decrypt on that key, through Secrets Manager only', () => {
    const key = 'arn:aws:kms:eu-central-1:123456789012:key/11111111-2222-3333-4444-555555555555';
    const s = synth({ config: testConfig({ secretKmsKeyArn: key }) });
    for (const [name, t, prefix] of readers(s)) {
      const kms = roleStatements(t, roleId(t, prefix)).statements.filter((x) => x.actions.some((a) => a.startsWith('kms:')));
      assert.deepEqual(kms, [{
        sid: 'DecryptDeploymentSecret',
        actions: ['kms:Decrypt'],
        resources: [key],
        condition: { StringEquals: { 'kms:ViaService': 'secretsmanager.eu-central-1.amazonaws.com' } },
      }], name);
    }
    // The digest never touches the secret.
    assert.ok(!roleStatements(s.opsT, roleId(s.opsT, 'DigestRole')).statements.some((x) => x.actions.some((a) => a.startsWith('kms:') || a.startsWith('secretsmanager:'))));
  });
});
