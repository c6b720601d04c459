// mcp-server as an OAuth 2.1 resource server (issue 13), the infra side: the authorization server
// (a Cognito user pool with a resource server and an app client registered with claude.ai's
// callback, or an existing server named by its issuer) and the environment that tells mcp-server
// which tokens to accept.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type CfnResource, CfnOutput, Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as cognito from 'aws-cdk-lib/aws-cognito';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { PREFIX, logGroupName } from './names.ts';
import { CLAUDE_CALLBACK_URLS, type CognitoConfig, type OAuthConfig } from './oauth-config.ts';
import { INFRA_DIR } from './paths.ts';
import { allowLogging, functionRole, ignoreRedundantRoleDependency } from './rust-function.ts';

/** Names read by functions/mcp-server (src/config/mod.rs, src/oauth/settings.rs), one to one. */
export const OAUTH_ENV = {
  auth: 'MCP_AUTH',
  userHeaderKeys: 'MCP_USER_HEADER_KEYS',
  oauthIssuer: 'MCP_OAUTH_ISSUER',
  resourceUrl: 'MCP_RESOURCE_URL',
  oauthProfiles: 'MCP_OAUTH_PROFILES',
  oauthProfileClaim: 'MCP_OAUTH_PROFILE_CLAIM',
  oauthAudienceClaim: 'MCP_OAUTH_AUDIENCE_CLAIM',
  oauthAudience: 'MCP_OAUTH_AUDIENCE',
  oauthAlgorithms: 'MCP_OAUTH_ALGORITHMS',
  oauthLeewaySecs: 'MCP_OAUTH_LEEWAY_SECS',
  oauthTimeoutMs: 'MCP_OAUTH_TIMEOUT_MS',
  oauthTokenTypes: 'MCP_OAUTH_TOKEN_TYPES',
} as const;

/**
 * Cognito access tokens carry the app client id in `client_id` (no `aud`) and the scopes in `scope`.
 * The profile claim stays `scope`, not `cognito:groups`: mcp-server advertises the values of
 * MCP_OAUTH_PROFILES as the scopes to request (`scopes_supported`, the challenge's `scope=`), and
 * Cognito refuses a scope its app client does not allow, so those values must be real scopes.
 * Which person may receive which scope is the pre-token-generation trigger's job (below).
 */
export const COGNITO_AUDIENCE_CLAIM = 'client_id';
export const COGNITO_PROFILE_CLAIM = 'scope';

/** The pre-token-generation trigger (V2_0): keeps a scope only for members of its group. */
export const SCOPE_TRIGGER_CODE_FILE = join(INFRA_DIR, 'src', 'cognito', 'scope-groups.cjs');
export const scopeTriggerName = (stage: string): string => `${PREFIX}-${stage}-cognito-scopes`;
/** The trigger's environment (Lambda code, not mcp-server's). */
export const SCOPE_TRIGGER_ENV = { resourceServerId: 'RESOURCE_SERVER_ID', scopeGroups: 'SCOPE_GROUPS', noGroupScopes: 'NO_GROUP_SCOPES' } as const;

export interface CognitoServer {
  readonly userPool: cognito.UserPool;
  readonly client: cognito.UserPoolClient;
  readonly domain: cognito.UserPoolDomain;
  /** The resource server's identifier, the prefix of every custom scope. */
  readonly resourceServerId: string;
  readonly issuer: string;
  /** One group per scope, of the scope's name: its members receive the scope. */
  readonly groups: readonly cognito.UserPoolGroup[];
  readonly scopeTrigger: lambda.Function;
  /** The public client of `/connect/<connector>` (per-user connectors with some `oauth_user` catalog). */
  readonly connectClient?: cognito.UserPoolClient;
}

/**
 * A user pool for the people who connect: admin-created accounts (unless `selfSignUp`), e-mail
 * as user name, a strong password policy, TOTP as second factor; kept when the stack goes (the
 * accounts are people's, like the audit log). One resource server whose scopes map to profiles,
 * and one app client for claude.ai: authorization code only, public (PKCE) unless configured
 * confidential, allowed exactly the resource server's scopes and `openid`. The client allows
 * every scope to everyone, so who receives which is decided per person: one group per scope and
 * a pre-token-generation trigger that drops the scopes of groups the person is not in (issue 23).
 */
export function cognitoServer(scope: Construct, stage: string, cfg: CognitoConfig, resourceUrl: string, logRetentionDays: number, connectCallbackUrls?: readonly string[]): CognitoServer {
  const stack = Stack.of(scope);
  const userPool = new cognito.UserPool(scope, 'UserPool', {
    // Access-token customization (the V2_0 trigger below) needs Essentials or Plus; stated, not defaulted.
    featurePlan: cognito.FeaturePlan.ESSENTIALS,
    userPoolName: `hosted-mcp-${stage}`,
    selfSignUpEnabled: cfg.selfSignUp,
    signInAliases: { email: true },
    autoVerify: { email: true },
    signInCaseSensitive: false,
    passwordPolicy: {
      minLength: 14,
      requireLowercase: true,
      requireUppercase: true,
      requireDigits: true,
      requireSymbols: true,
      tempPasswordValidity: Duration.days(3),
    },
    mfa: { off: cognito.Mfa.OFF, optional: cognito.Mfa.OPTIONAL, required: cognito.Mfa.REQUIRED }[cfg.mfa],
    // TOTP only: SMS needs an SNS role and costs per message.
    ...(cfg.mfa === 'off' ? {} : { mfaSecondFactor: { otp: true, sms: false } }),
    accountRecovery: cognito.AccountRecovery.EMAIL_ONLY,
    deletionProtection: true,
    removalPolicy: RemovalPolicy.RETAIN,
  });
  const resourceServerId = cfg.resourceServerId ?? resourceUrl;
  const scopes = Object.entries(cfg.scopes).map(([scopeName, profile]) => new cognito.ResourceServerScope({
    scopeName,
    scopeDescription: profile === '*' ? 'Every tool of the deployment' : `The tools of profile ${profile}`,
  }));
  const resourceServer = userPool.addResourceServer('ResourceServer', {
    identifier: resourceServerId,
    userPoolResourceServerName: `hosted-mcp-${stage}`,
    scopes,
  });
  const groups = Object.entries(cfg.scopes).map(([scopeName, profile], i) => userPool.addGroup(`ScopeGroup${i}`, {
    groupName: scopeName,
    description: `Members receive scope ${scopeName}: ${profile === '*' ? 'every tool of the deployment' : `the tools of profile ${profile}`}`,
  }));
  const scopeTrigger = scopeGroupsTrigger(scope, stage, resourceServerId, cfg, logRetentionDays);
  userPool.addTrigger(cognito.UserPoolOperation.PRE_TOKEN_GENERATION_CONFIG, scopeTrigger, cognito.LambdaVersion.V2_0);
  const domain = userPool.addDomain('Domain', { cognitoDomain: { domainPrefix: cfg.domainPrefix } });
  const client = userPool.addClient('ClaudeClient', {
    userPoolClientName: `hosted-mcp-${stage}-claude`,
    generateSecret: cfg.confidentialClient,
    // The hosted login pages only (SRP, refresh); no password or custom-auth API flows.
    authFlows: { userSrp: true },
    oAuth: {
      flows: { authorizationCodeGrant: true, implicitCodeGrant: false, clientCredentials: false },
      scopes: [...scopes.map((s) => cognito.OAuthScope.resourceServer(resourceServer, s)), cognito.OAuthScope.OPENID],
      callbackUrls: [...CLAUDE_CALLBACK_URLS, ...cfg.callbackUrls],
    },
    supportedIdentityProviders: [cognito.UserPoolClientIdentityProvider.COGNITO],
    preventUserExistenceErrors: true,
    enableTokenRevocation: true,
  });
  // Per-user connectors: the public client `/connect/<connector>` signs a person in with (PKCE,
  // no secret, the same scopes), returning to `<base>/connect/<connector>/signed-in`.
  const connectClient = connectCallbackUrls === undefined || connectCallbackUrls.length === 0 ? undefined : userPool.addClient('ConnectClient', {
    userPoolClientName: `hosted-mcp-${stage}-connect`,
    generateSecret: false,
    authFlows: { userSrp: true },
    oAuth: {
      flows: { authorizationCodeGrant: true, implicitCodeGrant: false, clientCredentials: false },
      scopes: [...scopes.map((s) => cognito.OAuthScope.resourceServer(resourceServer, s)), cognito.OAuthScope.OPENID],
      callbackUrls: [...connectCallbackUrls],
    },
    supportedIdentityProviders: [cognito.UserPoolClientIdentityProvider.COGNITO],
    preventUserExistenceErrors: true,
    enableTokenRevocation: true,
  });
  const issuer = `https://cognito-idp.${stack.region}.${stack.urlSuffix}/${userPool.userPoolId}`;
  return { userPool, client, domain, resourceServerId, issuer, groups, scopeTrigger, ...(connectClient ? { connectClient } : {}) };
}

/**
 * The pre-token-generation trigger: Node.js 22, inline (src/cognito/scope-groups.cjs), its own
 * log group and a role that may write only there. It runs at every token issue, refresh included,
 * so leaving a group takes effect with the next access token (Cognito's default: within an hour).
 */
function scopeGroupsTrigger(scope: Construct, stage: string, resourceServerId: string, cfg: CognitoConfig, logRetentionDays: number): lambda.Function {
  const name = scopeTriggerName(stage);
  const logGroup = new logs.LogGroup(scope, 'CognitoScopesLog', {
    logGroupName: logGroupName(stage, 'cognito-scopes'),
    retention: logRetentionDays as logs.RetentionDays,
    removalPolicy: RemovalPolicy.DESTROY,
  });
  const role = functionRole(scope, 'CognitoScopesRole', `hosted-mcp ${stage}: Cognito pre-token-generation trigger; its log group only`);
  allowLogging(role, logGroup);
  const fn = new lambda.Function(scope, 'CognitoScopes', {
    functionName: name,
    description: `hosted-mcp ${stage}: keeps a scope in the access token only for members of its Cognito group`,
    runtime: lambda.Runtime.NODEJS_22_X,
    architecture: lambda.Architecture.ARM_64,
    handler: 'index.handler',
    code: lambda.Code.fromInline(readFileSync(SCOPE_TRIGGER_CODE_FILE, 'utf8')),
    memorySize: 128,
    // Cognito waits 5 s for a trigger.
    timeout: Duration.seconds(5),
    environment: {
      [SCOPE_TRIGGER_ENV.resourceServerId]: resourceServerId,
      [SCOPE_TRIGGER_ENV.scopeGroups]: JSON.stringify(Object.keys(cfg.scopes)),
      [SCOPE_TRIGGER_ENV.noGroupScopes]: JSON.stringify(cfg.selfSignUpScopes),
    },
    role,
    logGroup,
  });
  ignoreRedundantRoleDependency(fn.node.defaultChild as CfnResource);
  return fn;
}

/** `value=profile,…` as MCP_OAUTH_PROFILES takes it. */
export function grantList(grants: Readonly<Record<string, string>>, prefix = ''): string {
  return Object.entries(grants).map(([value, profile]) => `${prefix}${value}=${profile}`).join(',');
}

/**
 * The authorization server and mcp-server's OAuth environment: the two URLs that turn OAuth on,
 * the modes, and the claim settings (for Cognito always stated; for an external server only
 * what the configuration gives, the server's defaults otherwise).
 */
/**
 * `connect` (per-user connectors): a client id given in the configuration, or the callback URLs
 * of the public client to create at Cognito; either becomes an accepted audience with Cognito.
 */
export function oauthSetup(scope: Construct, stage: string, oauth: OAuthConfig, resourceUrl: string, logRetentionDays: number,
  connect?: { readonly clientId?: string; readonly callbackUrls: readonly string[] }): {
  environment: Record<string, string>;
  cognito?: CognitoServer;
} {
  const environment: Record<string, string> = {
    [OAUTH_ENV.resourceUrl]: resourceUrl,
    [OAUTH_ENV.auth]: oauth.apiKeys ? 'api_key,oauth' : 'oauth',
  };
  let server: CognitoServer | undefined;
  if (oauth.cognito) {
    server = cognitoServer(scope, stage, oauth.cognito, resourceUrl, logRetentionDays, connect && !connect.clientId ? connect.callbackUrls : undefined);
    // The connect client's tokens are checked like any caller's: its id is an audience too.
    const connectId = connect?.clientId ?? server.connectClient?.userPoolClientId;
    const audience = [server.client.userPoolClientId, ...(connectId ? [connectId] : [])];
    Object.assign(environment, {
      [OAUTH_ENV.oauthIssuer]: server.issuer,
      [OAUTH_ENV.oauthAudienceClaim]: COGNITO_AUDIENCE_CLAIM,
      [OAUTH_ENV.oauthAudience]: audience.join(','),
      [OAUTH_ENV.oauthProfileClaim]: COGNITO_PROFILE_CLAIM,
      // Cognito prefixes custom scopes with the resource server's identifier.
      [OAUTH_ENV.oauthProfiles]: grantList(oauth.cognito.scopes, `${server.resourceServerId}/`),
    });
    new CfnOutput(scope, 'CognitoUserPoolId', { value: server.userPool.userPoolId, description: 'Cognito user pool (create users here: aws cognito-idp admin-create-user)' });
    new CfnOutput(scope, 'CognitoClientId', { value: server.client.userPoolClientId, description: "OAuth client id: the connector's advanced settings in claude.ai" });
    new CfnOutput(scope, 'CognitoDomainUrl', { value: server.domain.baseUrl(), description: 'Cognito login pages and OAuth endpoints' });
  } else if (oauth.external) {
    const e = oauth.external;
    environment[OAUTH_ENV.oauthIssuer] = e.issuer;
    if (e.audienceClaim) environment[OAUTH_ENV.oauthAudienceClaim] = e.audienceClaim;
    if (e.audience) environment[OAUTH_ENV.oauthAudience] = e.audience.join(',');
    if (e.profileClaim) environment[OAUTH_ENV.oauthProfileClaim] = e.profileClaim;
    if (e.profiles) environment[OAUTH_ENV.oauthProfiles] = grantList(e.profiles);
  } else if (oauth.authorizationServer) {
    // mcp-server issues the tokens itself: their `iss` is its own origin, where its routes are
    // (start-up refuses another); audience and claims keep the server's defaults, which its tokens meet.
    environment[OAUTH_ENV.oauthIssuer] = resourceUrl.slice(0, -'/mcp'.length);
    const scopes = oauth.authorizationServer.scopes;
    if (scopes) environment[OAUTH_ENV.oauthProfiles] = grantList(scopes);
  }
  if (oauth.algorithms) environment[OAUTH_ENV.oauthAlgorithms] = oauth.algorithms.join(',');
  if (oauth.leewaySeconds !== undefined) environment[OAUTH_ENV.oauthLeewaySecs] = String(oauth.leewaySeconds);
  if (oauth.fetchTimeoutMs !== undefined) environment[OAUTH_ENV.oauthTimeoutMs] = String(oauth.fetchTimeoutMs);
  if (oauth.tokenTypes) environment[OAUTH_ENV.oauthTokenTypes] = oauth.tokenTypes.join(',');
  new CfnOutput(scope, 'OAuthIssuer', { value: environment[OAUTH_ENV.oauthIssuer]!, description: 'The authorization server (MCP_OAUTH_ISSUER)' });
  if (server?.connectClient) {
    new CfnOutput(scope, 'ConnectClientId', { value: server.connectClient.userPoolClientId, description: 'The client /connect/<connector> signs people in with (MCP_CONNECT_CLIENT_ID)' });
  }
  return { environment, ...(server ? { cognito: server } : {}) };
}
