// The IAM statements the functions need, written out rather than taken from `grant*` helpers, so
// each role holds exactly the actions the design names (the tests compare them one to one).
import { ArnFormat, Stack } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import type { DeploymentConfig } from './config.ts';

/** The deployment secret as IAM resource: the full ARN, or the name with Secrets Manager's random suffix. */
export function secretArnForPolicy(stack: Stack, secretId: string): string {
  if (secretId.startsWith('arn:')) return secretId;
  return stack.formatArn({
    service: 'secretsmanager',
    resource: 'secret',
    resourceName: `${secretId}-??????`,
    arnFormat: ArnFormat.COLON_RESOURCE_NAME,
  });
}

/** secretsmanager:GetSecretValue on the one secret (and kms:Decrypt through Secrets Manager for a CMK). */
export function allowSecretRead(role: iam.Role, config: DeploymentConfig): void {
  const stack = Stack.of(role);
  role.addToPrincipalPolicy(
    new iam.PolicyStatement({
      sid: 'ReadDeploymentSecret',
      actions: ['secretsmanager:GetSecretValue'],
      resources: [secretArnForPolicy(stack, config.secretId)],
    }),
  );
  if (config.secretKmsKeyArn) {
    role.addToPrincipalPolicy(
      new iam.PolicyStatement({
        sid: 'DecryptDeploymentSecret',
        actions: ['kms:Decrypt'],
        resources: [config.secretKmsKeyArn],
        conditions: { StringEquals: { 'kms:ViaService': `secretsmanager.${stack.region}.amazonaws.com` } },
      }),
    );
  }
}

/** A log group as IAM resource, in both spellings CloudWatch Logs authorizes against. */
export function logGroupArns(stack: Stack, name: string): string[] {
  const arn = stack.formatArn({ service: 'logs', resource: 'log-group', resourceName: name, arnFormat: ArnFormat.COLON_RESOURCE_NAME });
  return [arn, `${arn}:*`];
}

/**
 * Logs Insights over the given log groups (the audit log groups; for quota-alarm also its own):
 * StartQuery and GetQueryResults scoped to them.
 * StopQuery supports no resource-level permission (IAM service reference), so a statement scoped
 * to log groups would never match; it gets `*` and can only stop queries by id.
 */
export function allowInsightsQueries(role: iam.Role, logGroupNames: readonly string[]): void {
  const stack = Stack.of(role);
  role.addToPrincipalPolicy(
    new iam.PolicyStatement({
      sid: 'QueryAuditLogs',
      actions: ['logs:StartQuery', 'logs:GetQueryResults'],
      resources: logGroupNames.flatMap((n) => logGroupArns(stack, n)),
    }),
  );
  role.addToPrincipalPolicy(
    new iam.PolicyStatement({
      sid: 'StopOwnQueries',
      actions: ['logs:StopQuery'],
      resources: ['*'],
    }),
  );
}

/**
 * The limit counters: mcp-server only ever issues conditional updates: a tool call's counters
 * (one small item each) in one TransactWriteItems of Update actions, and the /health probe claim
 * as an UpdateItem. DynamoDB authorizes each action of a transaction as its own operation, so
 * UpdateItem is the one action, on the one table (no index ARNs).
 */
export function allowLimitCounters(role: iam.Role, table: dynamodb.ITable): void {
  role.addToPrincipalPolicy(
    new iam.PolicyStatement({
      sid: 'CountLimits',
      actions: ['dynamodb:UpdateItem'],
      resources: [table.tableArn],
    }),
  );
}

/**
 * The idempotency ledger and the MCP tasks beside it: mcp-server claims a key with a conditional
 * PutItem (a refused claim returns the entry it ran into), records the result with UpdateItem and
 * releases a claim whose write never happened with DeleteItem; a task is created with a
 * conditional PutItem, read with one strongly consistent GetItem (any instance answers
 * `tasks/get`) and changed with conditional UpdateItems. Those four item actions on the one
 * table; no Query or Scan, no index ARNs.
 */
export function allowLedgerWrites(role: iam.Role, table: dynamodb.ITable): void {
  role.addToPrincipalPolicy(
    new iam.PolicyStatement({
      sid: 'IdempotencyLedger',
      actions: ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:GetItem'],
      resources: [table.tableArn],
    }),
  );
}
