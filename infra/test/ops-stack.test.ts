// The ops stack: topic, SES identity, the two scheduled functions, their DLQs, the quota alarms.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RustFunction } from 'cargo-lambda-cdk';
import { parseCatalog } from '../src/catalogs.ts';
import { quotaAlarmsFromCatalogs } from '../src/quota-alarms.ts';
import { CATALOGS, flat, logicalId, synth, testConfig } from './helpers.ts';

describe('ops topic', () => {
  it('has a fixed name, enforces TLS, and one e-mail subscription per ops recipient', () => {
    const { opsT: t } = synth({ config: testConfig({ opsRecipients: ['a@example.com', 'b@example.com'] }) });
    t.hasResourceProperties('AWS::SNS::Topic', { TopicName: 'hosted-mcp-example-ops' });
    const subs = Object.values(t.findResources('AWS::SNS::Subscription')).map((s: any) => s.Properties);
    assert.deepEqual(subs.map((s) => [s.Protocol, s.Endpoint]).sort(), [['email', 'a@example.com'], ['email', 'b@example.com']]);
    const policy = (Object.values(t.findResources('AWS::SNS::TopicPolicy'))[0] as any).Properties.PolicyDocument.Statement;
    assert.ok(policy.some((s: any) => s.Effect === 'Deny' && s.Condition?.Bool?.['aws:SecureTransport'] === 'false'));
  });
});

describe('SES identity', () => {
  it('verifies the sender address by default', () => {
    const { opsT: t } = synth();
    t.resourceCountIs('AWS::SES::EmailIdentity', 1);
    t.hasResourceProperties('AWS::SES::EmailIdentity', { EmailIdentity: 'hosted-mcp@example.com' });
  });
  it("verifies the sender's domain with senderIdentity=domain", () => {
    const { opsT: t } = synth({ config: testConfig({ senderIdentity: 'domain' }) });
    t.hasResourceProperties('AWS::SES::EmailIdentity', { EmailIdentity: 'example.com' });
  });
});

const FUNCTIONS = [
  { binary: 'tool-error-digest', id: 'Digest', schedule: 'cron(0 7 ? * MON *)', retries: 2, maxAge: 21600 },
  { binary: 'quota-alarm', id: 'QuotaAlarm', schedule: 'rate(15 minutes)', retries: 1, maxAge: 900 },
];

describe('scheduled ops functions', () => {
  const s = synth();
  const t = s.opsT;
  for (const f of FUNCTIONS) {
    const name = `hosted-mcp-example-${f.binary}`;
    const fnId = logicalId(t, 'AWS::Lambda::Function', { FunctionName: name });
    const dlqId = logicalId(t, 'AWS::SQS::Queue', { QueueName: `${name}-dlq` });

    it(`${f.binary}: a RustFunction on arm64 provided.al2023, JSON logs into its own log group with retention`, () => {
      assert.ok(s.ops.node.findChild(f.id) instanceof RustFunction);
      const lg = logicalId(t, 'AWS::Logs::LogGroup', { LogGroupName: `/hosted-mcp/example/${f.binary}` });
      t.hasResourceProperties('AWS::Logs::LogGroup', { LogGroupName: `/hosted-mcp/example/${f.binary}`, RetentionInDays: 90 });
      t.hasResourceProperties('AWS::Lambda::Function', {
        FunctionName: name,
        Runtime: 'provided.al2023',
        Architectures: ['arm64'],
        Handler: 'bootstrap',
        LoggingConfig: { LogFormat: 'JSON', LogGroup: { Ref: lg }, ApplicationLogLevel: 'INFO', SystemLogLevel: 'INFO' },
      });
    });

    it(`${f.binary}: EventBridge Scheduler ${f.schedule} (Europe/Berlin) with retries and the DLQ`, () => {
      const sched = (Object.values(t.findResources('AWS::Scheduler::Schedule')) as any[]).find((x) => x.Properties.Name === name);
      assert.ok(sched);
      const p = sched.Properties;
      assert.equal(p.ScheduleExpression, f.schedule);
      assert.equal(p.ScheduleExpressionTimezone, 'Europe/Berlin');
      assert.equal(p.State, 'ENABLED');
      assert.deepEqual(p.FlexibleTimeWindow, { Mode: 'OFF' });
      assert.deepEqual(p.Target.Arn, { 'Fn::GetAtt': [fnId, 'Arn'] });
      assert.deepEqual(p.Target.DeadLetterConfig, { Arn: { 'Fn::GetAtt': [dlqId, 'Arn'] } });
      assert.deepEqual(p.Target.RetryPolicy, { MaximumRetryAttempts: 3, MaximumEventAgeInSeconds: f.maxAge });
    });

    it(`${f.binary}: a failed run is retried ${f.retries}x, then lands in the DLQ with its error`, () => {
      t.hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
        FunctionName: { Ref: fnId },
        Qualifier: '$LATEST',
        MaximumRetryAttempts: f.retries,
        MaximumEventAgeInSeconds: f.maxAge,
        DestinationConfig: { OnFailure: { Destination: { 'Fn::GetAtt': [dlqId, 'Arn'] } } },
      });
    });

    it(`${f.binary}: the DLQ is encrypted, TLS-only, keeps 14 days, and alarms on its first message`, () => {
      t.hasResourceProperties('AWS::SQS::Queue', { QueueName: `${name}-dlq`, SqsManagedSseEnabled: true, MessageRetentionPeriod: 1209600 });
      const alarm = (Object.values(t.findResources('AWS::CloudWatch::Alarm')) as any[]).find((a) => a.Properties.AlarmName === `hosted-mcp-example-${f.binary}-failed`)?.Properties;
      assert.ok(alarm);
      assert.equal(alarm.MetricName, 'ApproximateNumberOfMessagesVisible');
      assert.deepEqual(alarm.Dimensions, [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [dlqId, 'QueueName'] } }]);
      assert.equal(alarm.Threshold, 1);
      assert.equal(alarm.ComparisonOperator, 'GreaterThanOrEqualToThreshold');
      assert.deepEqual(alarm.AlarmActions, [{ Ref: logicalId(t, 'AWS::SNS::Topic') }]);
    });
  }

  it('follow the configured schedules and sizes', () => {
    const t2 = synth({
      config: testConfig({
        schedules: { digest: { expression: 'cron(30 6 ? * TUE *)', timeZone: 'UTC' }, quota: { expression: 'rate(5 minutes)' } },
        digest: { memoryMb: 512, timeoutSeconds: 600 },
      }),
    }).opsT;
    const byName = Object.fromEntries((Object.values(t2.findResources('AWS::Scheduler::Schedule')) as any[]).map((x) => [x.Properties.Name, x.Properties]));
    assert.equal(byName['hosted-mcp-example-tool-error-digest'].ScheduleExpression, 'cron(30 6 ? * TUE *)');
    assert.equal(byName['hosted-mcp-example-tool-error-digest'].ScheduleExpressionTimezone, 'UTC');
    assert.equal(byName['hosted-mcp-example-quota-alarm'].ScheduleExpression, 'rate(5 minutes)');
    t2.hasResourceProperties('AWS::Lambda::Function', { FunctionName: 'hosted-mcp-example-tool-error-digest', MemorySize: 512, Timeout: 600 });
  });

  it('query timeouts end a minute before the function does', () => {
    const t2 = synth({ config: testConfig({ digest: { timeoutSeconds: 100, sendAllClear: false }, quotaAlarm: { timeoutSeconds: 90 } }) }).opsT;
    const env = (fn: string): Record<string, unknown> =>
      t2.toJSON().Resources[logicalId(t2, 'AWS::Lambda::Function', { FunctionName: fn })].Properties.Environment.Variables;
    assert.equal(env('hosted-mcp-example-tool-error-digest').DIGEST_QUERY_TIMEOUT_SECS, '40');
    assert.equal(env('hosted-mcp-example-tool-error-digest').DIGEST_SEND_ALL_CLEAR, 'false');
    assert.equal(env('hosted-mcp-example-quota-alarm').QUOTA_QUERY_TIMEOUT_SECS, '30');
  });

  it('get the audit log group, sender, recipients and namespace in their environment', () => {
    const env = (fn: string): Record<string, unknown> =>
      t.toJSON().Resources[logicalId(t, 'AWS::Lambda::Function', { FunctionName: fn })].Properties.Environment.Variables;
    assert.deepEqual(env('hosted-mcp-example-tool-error-digest'), {
      DIGEST_LOG_GROUPS: '/hosted-mcp/example/mcp-server',
      DIGEST_RECIPIENTS: 'ops@example.com',
      DIGEST_SENDER: 'hosted-mcp@example.com',
      DIGEST_DASHBOARD_URL: 'https://eu-central-1.console.aws.amazon.com/cloudwatch/home?region=eu-central-1#dashboards/dashboard/hosted-mcp-example',
      DIGEST_SEND_ALL_CLEAR: 'true',
      DIGEST_SUBJECT_PREFIX: '[hosted-mcp example]',
      // Two minutes per query, ending well before the 300 s function timeout.
      DIGEST_QUERY_TIMEOUT_SECS: '120',
      DIGEST_API_TIMEOUT_SECS: '30',
      DIGEST_LOG_FORMAT: 'json',
    });
    assert.deepEqual(env('hosted-mcp-example-quota-alarm'), {
      // The audit log group and its own (the quota_probe lines of earlier runs).
      QUOTA_LOG_GROUPS: '/hosted-mcp/example/mcp-server,/hosted-mcp/example/quota-alarm',
      // The secret mcp-server reads (MCP_SECRET_ID): the probe's upstream credentials.
      QUOTA_SECRET_ID: 'hosted-mcp/example',
      QUOTA_EMF_NAMESPACE: 'HostedMcp',
      // Its 180 s timeout minus a minute: a stuck query is stopped and reported, not cut off.
      QUOTA_QUERY_TIMEOUT_SECS: '120',
      QUOTA_LOG_FORMAT: 'json',
    });
  });
});

describe('quota-alarm reads its own quota_probe lines', () => {
  const s = synth();
  const t = s.opsT;
  const fn = (t.toJSON().Resources[logicalId(t, 'AWS::Lambda::Function', { FunctionName: 'hosted-mcp-example-quota-alarm' })] as any).Properties;
  const groups = (fn.Environment.Variables.QUOTA_LOG_GROUPS as string).split(',');
  const own = (t.toJSON().Resources[fn.LoggingConfig.LogGroup.Ref] as any).Properties;

  it('queries the log group its stdout goes to, besides the audit log group', () => {
    assert.equal(own.LogGroupName, '/hosted-mcp/example/quota-alarm');
    assert.deepEqual(groups, ['/hosted-mcp/example/mcp-server', own.LogGroupName]);
  });

  it('writes it like the audit log: JSON log format (stdout JSON objects stay top-level), INFO lines kept, same retention', () => {
    const mcp = s.mcpT.toJSON().Resources;
    const mcpFn = (mcp[logicalId(s.mcpT, 'AWS::Lambda::Function', { FunctionName: 'hosted-mcp-example-mcp-server' })] as any).Properties;
    const audit = (mcp[mcpFn.LoggingConfig.LogGroup.Ref] as any).Properties;
    assert.equal(audit.LogGroupName, '/hosted-mcp/example/mcp-server');
    const format = (c: Record<string, unknown>): Record<string, unknown> => ({ LogFormat: c.LogFormat, ApplicationLogLevel: c.ApplicationLogLevel, SystemLogLevel: c.SystemLogLevel });
    assert.deepEqual(format(fn.LoggingConfig), { LogFormat: 'JSON', ApplicationLogLevel: 'INFO', SystemLogLevel: 'INFO' });
    assert.deepEqual(format(fn.LoggingConfig), format(mcpFn.LoggingConfig));
    assert.equal(own.RetentionInDays, audit.RetentionInDays);
    const s30 = synth({ config: testConfig({ logRetentionDays: 30 }) });
    for (const [tt, name] of [[s30.opsT, '/hosted-mcp/example/quota-alarm'], [s30.mcpT, '/hosted-mcp/example/mcp-server']] as const) {
      tt.hasResourceProperties('AWS::Logs::LogGroup', { LogGroupName: name, RetentionInDays: 30 });
    }
  });
});

describe('quota alarms (the quota-alarm plan)', () => {
  const { opsT: t } = synth();
  const alarms = (Object.values(t.findResources('AWS::CloudWatch::Alarm')) as any[])
    .map((a) => a.Properties)
    .filter((a) => a.MetricName.startsWith('Quota'));
  const topic = { Ref: logicalId(t, 'AWS::SNS::Topic') };

  it('exist for every connector quota-alarm can measure, and only for those', () => {
    const plan = quotaAlarmsFromCatalogs(CATALOGS)('HostedMcp');
    assert.ok(plan.alarms.some((a) => a.connector === 'papierkram'));
    assert.deepEqual(alarms.map((a) => a.AlarmName).sort(), plan.alarms.map((a) => `hosted-mcp-example-${a.id}`).sort());
  });

  it('papierkram: warning at 80 %, critical at 95 %, forecast exhausted before the window resets (4 x 15 min); all to the ops topic', () => {
    const p = alarms.filter((a) => a.Dimensions[0].Value === 'papierkram');
    const summary = p.map((a) => [a.AlarmName, a.MetricName, a.Statistic, a.ComparisonOperator, a.Threshold, a.EvaluationPeriods, a.DatapointsToAlarm]).sort();
    assert.deepEqual(summary, [
      ['hosted-mcp-example-quota-papierkram-critical', 'QuotaUtilizationPercent', 'Maximum', 'GreaterThanOrEqualToThreshold', 95, 1, 1],
      ['hosted-mcp-example-quota-papierkram-forecast', 'QuotaExhaustedBeforeWindowEnd', 'Maximum', 'GreaterThanOrEqualToThreshold', 1, 4, 4],
      ['hosted-mcp-example-quota-papierkram-warn', 'QuotaUtilizationPercent', 'Maximum', 'GreaterThanOrEqualToThreshold', 80, 1, 1],
    ]);
    for (const a of p) {
      assert.equal(a.Namespace, 'HostedMcp');
      assert.deepEqual(a.Dimensions, [{ Name: 'Connector', Value: 'papierkram' }]);
      assert.equal(a.Period, 900);
      assert.equal(a.TreatMissingData, 'missing');
      assert.deepEqual(a.AlarmActions, [topic]);
      assert.match(a.AlarmDescription, /^\[(warn|critical)\] papierkram: /);
    }
  });

  it('come from whatever source is plugged in (quota-alarm alarms --json, or the catalogs)', () => {
    const catalog = parseCatalog('connector: tickets\nquota: { remaining: x-left, window: { day: UTC }, thresholds: [70] }\n', 'tickets.yaml');
    const { opsT } = synth({ quotaAlarms: quotaAlarmsFromCatalogs([catalog]) });
    const got = (Object.values(opsT.findResources('AWS::CloudWatch::Alarm')) as any[])
      .filter((a) => a.Properties.MetricName.startsWith('Quota')).map((a) => [a.Properties.AlarmName, a.Properties.Threshold]).sort();
    assert.deepEqual(got, [
      ['hosted-mcp-example-quota-tickets-critical', 100],
      ['hosted-mcp-example-quota-tickets-forecast', 1],
      ['hosted-mcp-example-quota-tickets-warn', 70],
    ]);
  });

  it('follow the configured metrics namespace, and refuse a plan for another one', () => {
    const { opsT } = synth({ config: testConfig({ metricsNamespace: 'HostedMcp/example' }) });
    for (const a of Object.values(opsT.findResources('AWS::CloudWatch::Alarm')) as any[]) {
      if (a.Properties.MetricName.startsWith('Quota')) assert.equal(a.Properties.Namespace, 'HostedMcp/example');
    }
    assert.throws(() => synth({ quotaAlarms: (ns) => quotaAlarmsFromCatalogs(CATALOGS)(`${ns}-other`) }), /publishes to HostedMcp/);
  });
});

describe('ops stack', () => {
  it('contains exactly these resource types (nothing unexpected was added)', () => {
    const { opsT: t } = synth();
    const counts: Record<string, number> = {};
    for (const r of Object.values(t.toJSON().Resources) as any[]) counts[r.Type] = (counts[r.Type] ?? 0) + 1;
    assert.deepEqual(counts, {
      'AWS::SNS::Topic': 1,
      'AWS::SNS::TopicPolicy': 1,
      'AWS::SNS::Subscription': 1,
      'AWS::SES::EmailIdentity': 1,
      'AWS::IAM::Role': 4,
      'AWS::IAM::Policy': 4,
      'AWS::Logs::LogGroup': 2,
      'AWS::SQS::Queue': 2,
      'AWS::SQS::QueuePolicy': 2,
      'AWS::Lambda::Function': 2,
      'AWS::Lambda::EventInvokeConfig': 2,
      'AWS::Scheduler::Schedule': 2,
      // Two DLQ alarms and the quota alarms of the shipped catalogs.
      'AWS::CloudWatch::Alarm': 2 + quotaAlarmsFromCatalogs(CATALOGS)('HostedMcp').alarms.length,
    });
    assert.equal(flat(t.toJSON().Outputs.OpsTopicArn.Value), `\${Ref:${logicalId(t, 'AWS::SNS::Topic')}}`);
  });
});
