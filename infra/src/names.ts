// Physical names derived from the stage. Fixed names let the two stacks find each other without
// CloudFormation exports (no export lock between them) and give ops names they can type.

export const PREFIX = 'hosted-mcp';

/** Folder = package = binary = CDK `binaryName`. */
export const BINARIES = {
  mcpServer: 'mcp-server',
  digest: 'tool-error-digest',
  quotaAlarm: 'quota-alarm',
} as const;

/** `edge`: the us-east-1 stack of the Lambda@Edge function (OAuth behind CloudFront only). */
export const stackName = (stage: string, part: 'mcp' | 'ops' | 'edge'): string => `${PREFIX}-${stage}-${part}`;
export const functionName = (stage: string, binary: string): string => `${PREFIX}-${stage}-${binary}`;
/** Log group of a function; for mcp-server this is the audit log (the audit lines are its stdout). */
export const logGroupName = (stage: string, binary: string): string => `/${PREFIX}/${stage}/${binary}`;
export const auditLogGroupName = (stage: string): string => logGroupName(stage, BINARIES.mcpServer);
export const opsTopicName = (stage: string): string => `${PREFIX}-${stage}-ops`;
export const alarmName = (stage: string, what: string): string => `${PREFIX}-${stage}-${what}`;
/** The DynamoDB table of mcp-server's shared limit and budget counters. */
export const limitsTableName = (stage: string): string => `${PREFIX}-${stage}-limits`;
/** The DynamoDB table of mcp-server's idempotency ledger (exactly-once writes). */
export const ledgerTableName = (stage: string): string => `${PREFIX}-${stage}-ledger`;
/** The DynamoDB table of the vault: each person's own upstream tokens (per-user connectors). */
export const vaultTableName = (stage: string): string => `${PREFIX}-${stage}-vault`;
/** The alias of the KMS key whose data keys seal the vault's tokens. */
export const vaultKeyAlias = (stage: string): string => `alias/${PREFIX}-${stage}-vault`;
/** The table of the events upstreams push to /inbound/<connector>. */
export const inboundTableName = (stage: string): string => `${PREFIX}-${stage}-inbound`;
/** The alias of the KMS key whose data keys seal the inbound events. */
export const inboundKeyAlias = (stage: string): string => `alias/${PREFIX}-${stage}-inbound`;
/** The table of the authorization server's clients, codes and refresh tokens (`oauth.authorizationServer`). */
export const issuerTableName = (stage: string): string => `${PREFIX}-${stage}-issuer`;
/** The alias of the KMS key (ECC_NIST_P256, sign and verify) that signs our access tokens. */
export const issuerKeyAlias = (stage: string): string => `alias/${PREFIX}-${stage}-issuer`;
export const dashboardName = (stage: string): string => `${PREFIX}-${stage}`;
/** The Lambda@Edge function restoring the 401's WWW-Authenticate (OAuth behind CloudFront). */
export const edgeFunctionName = (stage: string): string => `${PREFIX}-${stage}-www-authenticate`;
