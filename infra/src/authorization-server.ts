// mcp-server as its own OAuth 2.1 authorization server (issue 46, item 6), the infra side: the
// table of its clients, codes and refresh tokens (TTL), the KMS key that signs its access tokens
// (ECC_NIST_P256, sign and verify), mcp-server's grants on both, its environment and the public
// routes (the RFC 8414 metadata and /oauth/*, no authorizer: clients and browsers reach them
// before they hold any token). Created only with `oauth.authorizationServer`.
import { Fn, RemovalPolicy } from 'aws-cdk-lib';
import * as apigw from 'aws-cdk-lib/aws-apigatewayv2';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import type { Construct } from 'constructs';
import { issuerKeyAlias, issuerTableName } from './names.ts';
import type { AuthorizationServerConfig } from './oauth-config.ts';

/** The names mcp-server reads (functions/mcp-server/src/issuer/settings.rs). */
export const AS_ENV = {
  idpIssuer: 'MCP_AS_IDP_ISSUER',
  idpClientId: 'MCP_AS_IDP_CLIENT_ID',
  table: 'MCP_AS_TABLE',
  keyId: 'MCP_AS_KEY_ID',
  previousKeyIds: 'MCP_AS_PREVIOUS_KEY_IDS',
  groupsClaim: 'MCP_AS_GROUPS_CLAIM',
  scopeGroups: 'MCP_AS_SCOPE_GROUPS',
} as const;

/**
 * The table as mcp-server writes it (functions/mcp-server/src/issuer/table.rs): one item per
 * record under partition key `pk` (`client#…`, `code#…`, `refresh#…`, `family#…`, `claim#…`,
 * `reg#…`), no sort key, `expires_at` (Unix seconds) the TTL attribute.
 */
export const AS_TABLE_SCHEMA = { partitionKey: 'pk', ttlAttribute: 'expires_at' } as const;

/** The item requests table.rs makes: a record read, written, or taken by a conditional update. */
export const AS_TABLE_ACTIONS = ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'] as const;
/** The KMS requests of kms.rs: the public key once at start, a signature per access token. */
export const AS_KEY_ACTIONS = ['kms:GetPublicKey', 'kms:Sign'] as const;
/** The one signing algorithm kms.rs asks for (`SigningAlgorithmSpec::EcdsaSha256`). */
export const AS_SIGNING_ALGORITHM = 'ECDSA_SHA_256';

/** The routes mcp-server serves in this mode (http/mod.rs, issuer/metadata.rs), method and path. */
export const AS_ROUTES = [
  ['GET', '/.well-known/oauth-authorization-server'],
  ['GET', '/oauth/jwks'],
  ['POST', '/oauth/register'],
  ['GET', '/oauth/authorize'],
  ['GET', '/oauth/callback'],
  ['POST', '/oauth/consent'],
  ['POST', '/oauth/token'],
  ['POST', '/oauth/revoke'],
] as const;

/** Where the company IdP sends people back: the redirect URI of our client there. */
export const IDP_CALLBACK_PATH = '/oauth/callback';

/**
 * The table: partition key `pk` (string), TTL on `expires_at`, on demand, no index, no stream.
 * Point-in-time recovery off: a restore would bring back used codes and rotated refresh tokens
 * as unused (replays) and families since revoked; everything in it expires on its own (codes in
 * 60 s, refresh tokens in 30 days, clients in 90). Kept when the stack goes and protected against
 * deletion, as the other tables: losing it signs every client out.
 */
export function issuerTable(scope: Construct, stage: string): dynamodb.Table {
  return new dynamodb.Table(scope, 'IssuerTable', {
    tableName: issuerTableName(stage),
    partitionKey: { name: AS_TABLE_SCHEMA.partitionKey, type: dynamodb.AttributeType.STRING },
    timeToLiveAttribute: AS_TABLE_SCHEMA.ttlAttribute,
    billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
    encryption: dynamodb.TableEncryption.DEFAULT,
    pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: false },
    deletionProtection: true,
    removalPolicy: RemovalPolicy.RETAIN,
  });
}

/**
 * A signing key: asymmetric `ECC_NIST_P256`, `SIGN_VERIFY` (ES256; the private key never
 * leaves KMS). KMS rotates no asymmetric key by itself: a rotation is a new generation, a new
 * key (construct `IssuerKey<n>`, alias `…-issuer-<n>` past the first), the old one kept as a
 * previous key while its tokens live (authorization-server.md, "Rotating the signing key").
 * Kept when the stack goes. The key policy is CDK's default (the account's IAM decides); the
 * one role granted anything on it is mcp-server's.
 */
export function issuerKey(scope: Construct, stage: string, generation = 1): kms.Key {
  const suffix = generation === 1 ? '' : `${generation}`;
  return new kms.Key(scope, `IssuerKey${suffix}`, {
    alias: generation === 1 ? issuerKeyAlias(stage) : `${issuerKeyAlias(stage)}-${generation}`,
    description: `hosted-mcp ${stage}: signs the access tokens of mcp-server's authorization server (ES256, generation ${generation})`,
    keySpec: kms.KeySpec.ECC_NIST_P256,
    keyUsage: kms.KeyUsage.SIGN_VERIFY,
    removalPolicy: RemovalPolicy.RETAIN,
  });
}

/** The key that signs and the previous ones (still published and accepted), as configured. */
export interface IssuerKeys {
  readonly current: kms.Key;
  readonly previous: readonly kms.Key[];
}

export function issuerKeys(scope: Construct, stage: string, cfg: AuthorizationServerConfig): IssuerKeys {
  return {
    current: issuerKey(scope, stage, cfg.keyGeneration ?? 1),
    previous: (cfg.previousKeyGenerations ?? []).map((g) => issuerKey(scope, stage, g)),
  };
}

/**
 * mcp-server's grants: GetItem, PutItem and UpdateItem on the table's ARN (no Query, Scan or
 * delete: the TTL removes), GetPublicKey on the current and the previous keys (read at start,
 * published in the JWKS) and Sign on the current key only, with ECDSA_SHA_256 only.
 */
export function allowIssuer(role: iam.Role, table: dynamodb.ITable, keys: IssuerKeys): void {
  const publicKeys = [keys.current, ...keys.previous].map((k) => k.keyArn);
  role.addToPrincipalPolicy(new iam.PolicyStatement({ sid: 'IssuerItems', actions: [...AS_TABLE_ACTIONS], resources: [table.tableArn] }));
  role.addToPrincipalPolicy(new iam.PolicyStatement({ sid: 'IssuerPublicKey', actions: ['kms:GetPublicKey'], resources: publicKeys }));
  role.addToPrincipalPolicy(new iam.PolicyStatement({
    sid: 'IssuerSign',
    actions: ['kms:Sign'],
    resources: [keys.current.keyArn],
    conditions: { StringEquals: { 'kms:SigningAlgorithm': AS_SIGNING_ALGORITHM } },
  }));
}

/** The variables of this mode: the IdP, our client there, the table, the keys (their ARNs), and who may approve which scope. */
export function issuerEnvironment(cfg: AuthorizationServerConfig, table: dynamodb.ITable, keys: IssuerKeys): Record<string, string> {
  return {
    [AS_ENV.idpIssuer]: cfg.idpIssuer,
    [AS_ENV.idpClientId]: cfg.idpClientId,
    [AS_ENV.table]: table.tableName,
    [AS_ENV.keyId]: keys.current.keyArn,
    ...(keys.previous.length > 0 ? { [AS_ENV.previousKeyIds]: Fn.join(',', keys.previous.map((k) => k.keyArn)) } : {}),
    ...(cfg.groupsClaim ? { [AS_ENV.groupsClaim]: cfg.groupsClaim } : {}),
    ...(cfg.scopeGroups ? { [AS_ENV.scopeGroups]: scopeGroupsValue(cfg.scopeGroups) } : {}),
  };
}

/** MCP_AS_SCOPE_GROUPS as the server parses it: `scope=group` pairs, comma-separated. */
export function scopeGroupsValue(scopeGroups: Readonly<Record<string, readonly string[]>>): string {
  return Object.entries(scopeGroups).flatMap(([scope, groups]) => groups.map((g) => `${scope}=${g}`)).join(',');
}

/** The routes to mcp-server, each with the one method it serves, without an authorizer (as `/mcp`). */
export function addIssuerRoutes(api: apigw.HttpApi, integration: apigw.HttpRouteIntegration): void {
  for (const [method, path] of AS_ROUTES) {
    api.addRoutes({ path, methods: [method === 'GET' ? apigw.HttpMethod.GET : apigw.HttpMethod.POST], integration });
  }
}
