// mcp-server as an OAuth 2.1 resource server (issue 13), the infra side: the authorization server
// (a Cognito user pool with a resource server and an app client registered with claude.ai's
// callback, or an existing server named by its issuer) and the environment that tells mcp-server
// which tokens to accept.
import { CfnOutput, Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as cognito from 'aws-cdk-lib/aws-cognito';
import type { Construct } from 'constructs';
import { CLAUDE_CALLBACK_URLS, type CognitoConfig, type OAuthConfig } from './oauth-config.ts';

/** Names read by functions/mcp-server (inventory/config.rs, oauth/settings.rs), one to one. */
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
} as const;

/** Cognito access tokens carry the app client id in `client_id` (no `aud`) and the scopes in `scope`. */
export const COGNITO_AUDIENCE_CLAIM = 'client_id';
export const COGNITO_PROFILE_CLAIM = 'scope';

export interface CognitoServer {
  readonly userPool: cognito.UserPool;
  readonly client: cognito.UserPoolClient;
  readonly domain: cognito.UserPoolDomain;
  /** The resource server's identifier, the prefix of every custom scope. */
  readonly resourceServerId: string;
  readonly issuer: string;
}

/**
 * A user pool for the people who connect: admin-created accounts (unless `selfSignUp`), e-mail
 * as user name, a strong password policy, TOTP as second factor; kept when the stack goes (the
 * accounts are people's, like the audit log). One resource server whose scopes map to profiles,
 * and one app client for claude.ai: authorization code only, public (PKCE) unless configured
 * confidential, allowed exactly the resource server's scopes and `openid`.
 */
export function cognitoServer(scope: Construct, stage: string, cfg: CognitoConfig, resourceUrl: string): CognitoServer {
  const stack = Stack.of(scope);
  const userPool = new cognito.UserPool(scope, 'UserPool', {
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
  const issuer = `https://cognito-idp.${stack.region}.${stack.urlSuffix}/${userPool.userPoolId}`;
  return { userPool, client, domain, resourceServerId, issuer };
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
export function oauthSetup(scope: Construct, stage: string, oauth: OAuthConfig, resourceUrl: string): {
  environment: Record<string, string>;
  cognito?: CognitoServer;
} {
  const environment: Record<string, string> = {
    [OAUTH_ENV.resourceUrl]: resourceUrl,
    [OAUTH_ENV.auth]: oauth.apiKeys ? 'api_key,oauth' : 'oauth',
  };
  let server: CognitoServer | undefined;
  if (oauth.cognito) {
    server = cognitoServer(scope, stage, oauth.cognito, resourceUrl);
    Object.assign(environment, {
      [OAUTH_ENV.oauthIssuer]: server.issuer,
      [OAUTH_ENV.oauthAudienceClaim]: COGNITO_AUDIENCE_CLAIM,
      [OAUTH_ENV.oauthAudience]: server.client.userPoolClientId,
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
  }
  if (oauth.algorithms) environment[OAUTH_ENV.oauthAlgorithms] = oauth.algorithms.join(',');
  if (oauth.leewaySeconds !== undefined) environment[OAUTH_ENV.oauthLeewaySecs] = String(oauth.leewaySeconds);
  if (oauth.fetchTimeoutMs !== undefined) environment[OAUTH_ENV.oauthTimeoutMs] = String(oauth.fetchTimeoutMs);
  new CfnOutput(scope, 'OAuthIssuer', { value: environment[OAUTH_ENV.oauthIssuer]!, description: 'The authorization server (MCP_OAUTH_ISSUER)' });
  return { environment, ...(server ? { cognito: server } : {}) };
}
