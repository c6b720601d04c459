// Per-user connectors on the infra side (issue 22, item 3): the vault (a DynamoDB table of each
// person's own upstream tokens, sealed with data keys of a KMS key of its own), mcp-server's grants
// on both, its environment and the `/connect/<connector>` routes. Created only when the
// configuration has `perUserConnectors`.
import { RemovalPolicy } from 'aws-cdk-lib';
import * as apigw from 'aws-cdk-lib/aws-apigatewayv2';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import type { Construct } from 'constructs';
import type { PerUserConnectorsConfig } from './config.ts';
import { vaultKeyAlias, vaultTableName } from './names.ts';

/** The names mcp-server reads (functions/mcp-server/src/config/mod.rs). */
export const VAULT_ENV = {
  vaultTable: 'MCP_VAULT_TABLE',
  vaultKeyId: 'MCP_VAULT_KEY_ID',
  connectClientId: 'MCP_CONNECT_CLIENT_ID',
} as const;

/** "My connections": the page (GET, our sign-in's return too) and its disconnect button (POST). */
export const CONNECTIONS_ROUTES = [
  ['GET', '/connections'],
  ['GET', '/connections/signed-in'],
  ['POST', '/connections/disconnect'],
] as const;

/**
 * The vault's keys as mcp-server writes them (functions/mcp-server/src/vault/table.rs): the
 * person's id (SHA-256 of issuer and subject) and the slot `<connector>#<scopes>`. No TTL
 * attribute: an entry lives until the person disconnects or the upstream refuses its grant
 * (`token_expires_at` is the access token's expiry, shown in the list, not the entry's).
 */
export const VAULT_TABLE_SCHEMA = { partitionKey: 'pk', sortKey: 'sk' } as const;

/** The encryption context key of every GenerateDataKey and Decrypt (vault/keys.rs `CONTEXT_KEY`). */
export const VAULT_CONTEXT_KEY = 'person';

/** The item requests mcp-server makes on the vault table: read, connect/refresh, disconnect, list. */
export const VAULT_TABLE_ACTIONS = ['dynamodb:GetItem', 'dynamodb:UpdateItem', 'dynamodb:Query'] as const;
/** The KMS requests of the envelope encryption: a data key per person, unwrapped again on read. */
export const VAULT_KEY_ACTIONS = ['kms:GenerateDataKey', 'kms:Decrypt'] as const;

/** The paths mcp-server serves for connecting (GET only): the link, our sign-in's return, the upstream's. */
export const CONNECT_PATHS = ['/connect/{connector}', '/connect/{connector}/signed-in', '/connect/{connector}/callback'] as const;

/**
 * The table: partition key `pk`, sort key `sk` (both strings), on demand, no index, no stream,
 * no TTL. Encrypted at rest with DynamoDB's default key; what matters is sealed before it gets
 * there (AES-256-GCM under a data key of the vault key, bound to the item). Kept when the stack
 * goes and protected against deletion: losing it disconnects everyone. Point-in-time recovery
 * is off unless `perUserConnectors.pointInTimeRecoveryDays` asks for it: a restore brings back
 * grants people disconnected and refresh tokens the upstream has since rotated (refused then,
 * and cleared), and every sealed grant stays restorable for the period after it was removed.
 */
export function vaultTable(scope: Construct, stage: string, cfg: PerUserConnectorsConfig): dynamodb.Table {
  const days = cfg.pointInTimeRecoveryDays;
  return new dynamodb.Table(scope, 'VaultTable', {
    tableName: vaultTableName(stage),
    partitionKey: { name: VAULT_TABLE_SCHEMA.partitionKey, type: dynamodb.AttributeType.STRING },
    sortKey: { name: VAULT_TABLE_SCHEMA.sortKey, type: dynamodb.AttributeType.STRING },
    billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
    encryption: dynamodb.TableEncryption.DEFAULT,
    pointInTimeRecoverySpecification: days === undefined
      ? { pointInTimeRecoveryEnabled: false }
      : { pointInTimeRecoveryEnabled: true, recoveryPeriodInDays: days },
    deletionProtection: true,
    removalPolicy: RemovalPolicy.RETAIN,
  });
}

/**
 * The vault key: symmetric, yearly automatic rotation (old versions keep decrypting), kept when
 * the stack goes (without it no stored grant opens). The key policy is CDK's default (the
 * account may delegate through IAM); the one role granted is mcp-server's.
 */
export function vaultKey(scope: Construct, stage: string): kms.Key {
  return new kms.Key(scope, 'VaultKey', {
    alias: vaultKeyAlias(stage),
    description: `hosted-mcp ${stage}: seals each person's upstream tokens in the vault table (data keys, context "${VAULT_CONTEXT_KEY}")`,
    enableKeyRotation: true,
    removalPolicy: RemovalPolicy.RETAIN,
  });
}

/**
 * mcp-server's grants: the three item requests on the table's ARN (no index, no Scan, no batch;
 * no DeleteItem: a disconnect leaves a tombstone so that versions never go back),
 * and GenerateDataKey and Decrypt on the key only with an encryption context of exactly one key,
 * `person` (present, and no other). Encrypt is not granted: the vault never calls it.
 */
export function allowVault(role: iam.Role, table: dynamodb.ITable, key: kms.IKey): void {
  role.addToPrincipalPolicy(
    new iam.PolicyStatement({
      sid: 'VaultItems',
      actions: [...VAULT_TABLE_ACTIONS],
      resources: [table.tableArn],
    }),
  );
  role.addToPrincipalPolicy(
    new iam.PolicyStatement({
      sid: 'VaultDataKeys',
      actions: [...VAULT_KEY_ACTIONS],
      resources: [key.keyArn],
      conditions: {
        'ForAllValues:StringEquals': { 'kms:EncryptionContextKeys': [VAULT_CONTEXT_KEY] },
        Null: { [`kms:EncryptionContext:${VAULT_CONTEXT_KEY}`]: 'false' },
      },
    }),
  );
}

/** The connect routes to mcp-server, GET only (unauthenticated at the gateway, as `/health`). */
export function addConnectRoutes(api: apigw.HttpApi, integration: apigw.HttpRouteIntegration): void {
  for (const path of CONNECT_PATHS) api.addRoutes({ path, methods: [apigw.HttpMethod.GET], integration });
  for (const [method, path] of CONNECTIONS_ROUTES) {
    api.addRoutes({ path, methods: [method === 'GET' ? apigw.HttpMethod.GET : apigw.HttpMethod.POST], integration });
  }
}
