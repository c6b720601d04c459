// The ops stack: the ops topic, the SES sender identity, the weekly tool-error digest and the
// 15-minute quota check on EventBridge Scheduler, and the quota alarms from the catalogs.
import { Annotations, CfnOutput, Duration, RemovalPolicy, Stack, type StackProps, TimeZone } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as cwActions from 'aws-cdk-lib/aws-cloudwatch-actions';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as scheduler from 'aws-cdk-lib/aws-scheduler';
import * as targets from 'aws-cdk-lib/aws-scheduler-targets';
import * as ses from 'aws-cdk-lib/aws-ses';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as subscriptions from 'aws-cdk-lib/aws-sns-subscriptions';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import type { DeploymentConfig, FunctionSizing, ScheduleConfig } from './config.ts';
import { allowInsightsQueries, allowSecretRead } from './grants.ts';
import { DIGEST_ENV, QUOTA_ENV } from './ops-env.ts';
import { BINARIES, alarmName, dashboardName, functionName, logGroupName, opsTopicName } from './names.ts';
import type { QuotaAlarmPlan } from './quota-alarms.ts';
import { type LambdaCode, allowLogging, functionRole, rustLambda } from './rust-function.ts';

/** Retries of a failed run (Lambda asynchronous invocation; 2 is the maximum). */
export const DIGEST_RETRIES = 2;
/** quota-alarm runs again in 15 minutes anyway. */
export const QUOTA_RETRIES = 1;
/** Scheduler retries when it cannot hand the event to Lambda. */
export const SCHEDULER_RETRIES = 3;
/** Timeout of one AWS API call in the digest, retries included (its own default). */
export const API_TIMEOUT_SECONDS = 30;

/**
 * One Logs Insights query may run 2 minutes (the functions' default), and always ends a minute
 * before Lambda would end the run, so a stuck query is stopped and reported, not cut off.
 */
export function queryTimeoutSeconds(functionTimeoutSeconds: number): number {
  return Math.min(120, functionTimeoutSeconds - 60);
}

/** The CloudWatch console link of a dashboard. */
export function dashboardUrl(region: string, name: string): string {
  return `https://${region}.console.aws.amazon.com/cloudwatch/home?region=${region}#dashboards/dashboard/${name}`;
}

export interface OpsStackProps extends StackProps {
  readonly config: DeploymentConfig;
  /** Audit log groups the digest and quota-alarm query (the MCP stacks' audit logs). */
  readonly auditLogGroupNames: readonly string[];
  /** `quota-alarm alarms --json`, from whichever source (app.ts). */
  readonly quotaAlarmPlan: QuotaAlarmPlan;
  readonly code: LambdaCode;
}

export class OpsStack extends Stack {
  readonly topic: sns.Topic;
  readonly identity: ses.EmailIdentity;
  readonly digest: lambda.Function;
  readonly quotaAlarm: lambda.Function;

  constructor(scope: Construct, id: string, props: OpsStackProps) {
    super(scope, id, props);
    const { config } = props;
    const { stage } = config;

    this.topic = new sns.Topic(this, 'OpsTopic', {
      topicName: opsTopicName(stage),
      displayName: `hosted-mcp ${stage} ops`,
      enforceSSL: true,
    });
    for (const address of config.opsRecipients) {
      this.topic.addSubscription(new subscriptions.EmailSubscription(address));
    }
    const alarmAction = new cwActions.SnsAction(this.topic);

    const senderDomain = config.sender.split('@')[1]!;
    this.identity = new ses.EmailIdentity(this, 'SenderIdentity', {
      identity:
        config.senderIdentity === 'domain' ? ses.Identity.domain(senderDomain) : ses.Identity.email(config.sender),
    });

    // tool-error-digest: Logs Insights over the audit logs → SES.
    const digestRole = functionRole(this, 'DigestRole', `tool-error-digest (${stage}): audit log queries, SES send`);
    allowInsightsQueries(digestRole, props.auditLogGroupNames);
    digestRole.addToPrincipalPolicy(
      new iam.PolicyStatement({
        sid: 'SendDigest',
        // SES v2 SendEmail with raw MIME content (the digest's HTML + text mail) is authorized as
        // ses:SendRawEmail; ses:SendEmail covers simple content. Both only as the sender identity.
        actions: ['ses:SendEmail', 'ses:SendRawEmail'],
        resources: [this.identity.emailIdentityArn],
      }),
    );
    this.digest = this.scheduledFunction('Digest', {
      config,
      binary: BINARIES.digest,
      description: `hosted-mcp ${stage}: weekly tool-error digest`,
      sizing: config.digest,
      role: digestRole,
      environment: {
        [DIGEST_ENV.logGroups]: props.auditLogGroupNames.join(','),
        [DIGEST_ENV.recipients]: config.opsRecipients.join(','),
        [DIGEST_ENV.sender]: config.sender,
        [DIGEST_ENV.dashboardUrl]: dashboardUrl(config.region, dashboardName(stage)),
        [DIGEST_ENV.sendAllClear]: String(config.digest.sendAllClear),
        [DIGEST_ENV.subjectPrefix]: `[hosted-mcp ${stage}]`,
        [DIGEST_ENV.queryTimeoutSecs]: String(queryTimeoutSeconds(config.digest.timeoutSeconds)),
        [DIGEST_ENV.apiTimeoutSecs]: String(API_TIMEOUT_SECONDS),
        [DIGEST_ENV.logFormat]: 'json',
      },
      schedule: config.schedules.digest,
      retries: DIGEST_RETRIES,
      maxEventAge: Duration.hours(6),
      code: props.code,
      alarmAction,
    });

    // quota-alarm: quota figures from the audit logs → EMF metrics. When a connector has shown no
    // quota figures for a while and its catalog declares `quota.probe`, the function sends that one
    // request upstream itself, with the connector's credentials from the deployment secret (the one
    // mcp-server reads), and writes the figures as one audit line (event `quota_probe`) to its
    // stdout, i.e. to its own log group. The next run has to see that line, so the function's own
    // log group is queried along with the audit log groups.
    //
    // Those lines are only found if each stays a top-level JSON object in CloudWatch Logs, as
    // mcp-server's audit lines do. AWS Lambda developer guide, "Configuring JSON and plain text log
    // formats": Rust has no built-in JSON application logger, so Lambda formats only its own system
    // (platform) records, and it does not double-encode application output that is already JSON, so
    // a JSON object written to stdout arrives as written and Logs Insights discovers its keys as
    // fields. "Log-level filtering": for such runtimes the JSON log format filters stdout JSON objects
    // by their "level" key (missing or invalid counts as INFO), so rustLambda's JSON format with
    // application level INFO keeps every info/warn/error audit line. Hence the same treatment as the
    // audit log group: JSON log format (rustLambda), the configured retention (scheduledFunction).
    // Unlike the audit log it goes with the stack (and the function): its probe lines only bridge a
    // connector's quiet period until the next run.
    const quotaRole = functionRole(this, 'QuotaAlarmRole', `quota-alarm (${stage}): audit log queries, deployment secret`);
    const quotaLogGroups = [...props.auditLogGroupNames, logGroupName(stage, BINARIES.quotaAlarm)];
    allowInsightsQueries(quotaRole, quotaLogGroups);
    // secretsmanager:GetSecretValue on the one secret, exactly as for mcp-server (plus kms:Decrypt
    // through Secrets Manager when the secret has a customer-managed key).
    allowSecretRead(quotaRole, config);
    this.quotaAlarm = this.scheduledFunction('QuotaAlarm', {
      config,
      binary: BINARIES.quotaAlarm,
      description: `hosted-mcp ${stage}: quota utilisation and forecast`,
      sizing: config.quotaAlarm,
      role: quotaRole,
      environment: {
        [QUOTA_ENV.logGroups]: quotaLogGroups.join(','),
        [QUOTA_ENV.secretId]: config.secretId,
        [QUOTA_ENV.emfNamespace]: config.metricsNamespace,
        [QUOTA_ENV.queryTimeoutSecs]: String(queryTimeoutSeconds(config.quotaAlarm.timeoutSeconds)),
        [QUOTA_ENV.logFormat]: 'json',
      },
      schedule: config.schedules.quota,
      retries: QUOTA_RETRIES,
      maxEventAge: Duration.minutes(15),
      code: props.code,
      alarmAction,
    });

    // Quota alarms: the plan of `quota-alarm alarms --json` (derived from the catalogs in TS by
    // default). quota-alarm emits into config.metricsNamespace (QUOTA_EMF_NAMESPACE).
    const plan = props.quotaAlarmPlan;
    for (const spec of plan.alarms) {
      if (spec.namespace !== config.metricsNamespace) {
        throw new Error(`quota alarm ${spec.id}: namespace ${spec.namespace}, but quota-alarm publishes to ${config.metricsNamespace}`);
      }
      const a = new cloudwatch.Alarm(this, `Quota-${spec.id}`, {
        alarmName: alarmName(stage, spec.id),
        alarmDescription: `[${spec.severity}] ${spec.description}`,
        metric: new cloudwatch.Metric({
          namespace: spec.namespace,
          metricName: spec.metricName,
          dimensionsMap: Object.fromEntries(spec.dimensions.map((d) => [d.name, d.value])),
          statistic: spec.statistic,
          period: Duration.seconds(spec.periodSeconds),
        }),
        threshold: spec.threshold,
        evaluationPeriods: spec.evaluationPeriods,
        datapointsToAlarm: spec.datapointsToAlarm,
        comparisonOperator: spec.comparisonOperator as cloudwatch.ComparisonOperator,
        // quota-alarm omits a figure it cannot know (no traffic since the reset): neither
        // breaching nor fine. Its own failures alarm through its dead-letter queue.
        treatMissingData: spec.treatMissingData as cloudwatch.TreatMissingData,
      });
      a.addAlarmAction(alarmAction);
    }
    for (const s of plan.skipped) {
      Annotations.of(this).addInfo(`no quota alarms for ${s.connector}: ${s.reason}`);
    }

    new CfnOutput(this, 'OpsTopicArn', { value: this.topic.topicArn });
    new CfnOutput(this, 'SenderIdentityName', { value: this.identity.emailIdentityName });
  }

  private scheduledFunction(
    id: string,
    o: {
      config: DeploymentConfig;
      binary: string;
      description: string;
      sizing: FunctionSizing;
      role: iam.Role;
      environment: Record<string, string>;
      schedule: ScheduleConfig;
      retries: number;
      maxEventAge: Duration;
      code: LambdaCode;
      alarmAction: cloudwatch.IAlarmAction;
    },
  ): lambda.Function {
    const { stage } = o.config;
    const logGroup = new logs.LogGroup(this, `${id}Log`, {
      logGroupName: logGroupName(stage, o.binary),
      retention: o.config.logRetentionDays as logs.RetentionDays,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    allowLogging(o.role, logGroup);

    // One dead-letter queue per function: runs that failed after their retries (with the error,
    // via the on-failure destination) and events the scheduler could not deliver.
    const dlq = new sqs.Queue(this, `${id}Dlq`, {
      queueName: `${functionName(stage, o.binary)}-dlq`,
      retentionPeriod: Duration.days(14),
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
    });

    const fn = rustLambda(this, id, o.code, {
      binaryName: o.binary,
      functionName: functionName(stage, o.binary),
      description: o.description,
      memoryMb: o.sizing.memoryMb,
      timeout: Duration.seconds(o.sizing.timeoutSeconds),
      environment: o.environment,
      role: o.role,
      logGroup,
    });
    fn.configureAsyncInvoke({
      retryAttempts: o.retries,
      maxEventAge: o.maxEventAge,
      onFailure: deadLetterDestination(dlq, o.role),
    });

    new scheduler.Schedule(this, `${id}Schedule`, {
      scheduleName: functionName(stage, o.binary),
      description: `${o.description}: ${o.schedule.expression} ${o.schedule.timeZone}`,
      schedule: scheduler.ScheduleExpression.expression(
        o.schedule.expression,
        TimeZone.of(o.schedule.timeZone),
      ),
      target: new targets.LambdaInvoke(fn, {
        retryAttempts: SCHEDULER_RETRIES,
        maxEventAge: o.maxEventAge,
        deadLetterQueue: dlq,
      }),
    });

    const dlqAlarm = new cloudwatch.Alarm(this, `${id}DlqAlarm`, {
      alarmName: alarmName(stage, `${o.binary}-failed`),
      alarmDescription: `${o.binary} failed after its retries (or was never invoked): see ${dlq.queueName}.`,
      metric: dlq.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(5), statistic: 'Maximum' }),
      threshold: 1,
      evaluationPeriods: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
    dlqAlarm.addAlarmAction(o.alarmAction);
    return fn;
  }
}

/**
 * The on-failure destination with only `sqs:SendMessage` (what Lambda uses); the stock
 * SqsDestination grants GetQueueAttributes and GetQueueUrl as well.
 */
function deadLetterDestination(queue: sqs.IQueue, role: iam.Role): lambda.IDestination {
  return {
    bind: () => {
      role.addToPrincipalPolicy(
        new iam.PolicyStatement({
          sid: 'DeadLetterFailedRuns',
          actions: ['sqs:SendMessage'],
          resources: [queue.queueArn],
        }),
      );
      return { destination: queue.queueArn };
    },
  };
}
