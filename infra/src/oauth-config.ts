// The optional `oauth` part of the deployment configuration (issue 13): which authorization
// server issues the tokens (a Cognito user pool created here, or an existing server), the
// resource URL they are bound to, and the front door that keeps OAuth discovery working.
// Validated with the rest of the configuration (config.ts), every problem naming its key.
import { Checker, HOST, type Json, describe } from './checker.ts';

/** The callbacks of claude.ai's connectors, always registered with the Cognito app client. */
export const CLAUDE_CALLBACK_URLS = [
  'https://claude.ai/api/mcp/auth_callback',
  // Reported as the callback Claude may move to; registering both costs nothing.
  'https://claude.com/api/mcp/auth_callback',
] as const;

/** Signature algorithms mcp-server accepts in MCP_OAUTH_ALGORITHMS (asymmetric only). */
export const OAUTH_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'EdDSA'] as const;

export type FrontDoor = 'cloudfront' | 'api-gateway';

export interface CognitoConfig {
  /** The user-pool domain `https://<prefix>.auth.<region>.amazoncognito.com` (login pages, endpoints). */
  readonly domainPrefix: string;
  /** The resource server's identifier, the prefix of its scopes; unset: the resource URL. */
  readonly resourceServerId?: string;
  /** Scope name → profile (`*`: the whole deployment); each becomes `<resourceServerId>/<name>`. */
  readonly scopes: Readonly<Record<string, string>>;
  /** Callbacks besides claude.ai's (e.g. a Claude Code or Cursor loopback callback). */
  readonly callbackUrls: readonly string[];
  /** An app client with a secret (entered next to the client id); default: public, PKCE. */
  readonly confidentialClient: boolean;
  /** People may create their own accounts; default: only admin-created users. */
  readonly selfSignUp: boolean;
  /**
   * Scope names (from `scopes`) a person in none of the scope groups receives: what anyone who
   * signs up may reach. Required with `selfSignUp` (`[]`: nothing until an admin adds a group),
   * refused without it.
   */
  readonly selfSignUpScopes: readonly string[];
  /** TOTP second factor. */
  readonly mfa: 'off' | 'optional' | 'required';
}

export interface ExternalIssuerConfig {
  /** MCP_OAUTH_ISSUER */
  readonly issuer: string;
  /** MCP_OAUTH_AUDIENCE_CLAIM (server default `aud`). */
  readonly audienceClaim?: string;
  /** MCP_OAUTH_AUDIENCE (server default: the resource URL and its profile URLs). */
  readonly audience?: readonly string[];
  /** MCP_OAUTH_PROFILE_CLAIM (server default `scope`). */
  readonly profileClaim?: string;
  /** MCP_OAUTH_PROFILES: claim value → profile, `*` the whole deployment (server default `mcp:tools=*`). */
  readonly profiles?: Readonly<Record<string, string>>;
}

export interface OAuthConfig {
  /** MCP_RESOURCE_URL; unset: `https://<custom domain or the front door's own host>/mcp`, known at deploy. */
  readonly resourceUrl?: string;
  /** MCP_AUTH: API keys keep working next to OAuth (`api_key,oauth`), or OAuth only (`oauth`). */
  readonly apiKeys: boolean;
  /** `cloudfront`: CloudFront + Lambda@Edge restore the 401's WWW-Authenticate; `api-gateway`: rely on the clients' well-known fallback. */
  readonly frontDoor: FrontDoor;
  /** MCP_OAUTH_ALGORITHMS (server default RS256, PS256, ES256, EdDSA). */
  readonly algorithms?: readonly string[];
  /** MCP_OAUTH_LEEWAY_SECS (server default 30). */
  readonly leewaySeconds?: number;
  /** MCP_OAUTH_TIMEOUT_MS: one metadata or key-set request (server default 2000). */
  readonly fetchTimeoutMs?: number;
  /**
   * MCP_OAUTH_TOKEN_TYPES: the access tokens' header `typ` values the server accepts (server default
   * `at+jwt`, and `none` for a Cognito issuer, whose access tokens carry no `typ`); `none` admits a
   * header without one. Keycloak and Entra ID send `JWT`.
   */
  readonly tokenTypes?: readonly string[];
  /** Exactly one of `cognito`, `external` and `authorizationServer`: each names the tokens' issuer. */
  readonly cognito?: CognitoConfig;
  readonly external?: ExternalIssuerConfig;
  /** mcp-server as the authorization server, people signing in at the company's IdP (issue 46). */
  readonly authorizationServer?: AuthorizationServerConfig;
}

/**
 * mcp-server is its own OAuth 2.1 authorization server (MCP_AS_IDP_ISSUER): clients register
 * themselves and connect with the URL alone; people sign in at the company's OpenID provider
 * through one public client of ours there, then approve the client on our consent page. The
 * tokens' issuer (MCP_OAUTH_ISSUER) is then this server's own origin.
 */
export interface AuthorizationServerConfig {
  /** MCP_AS_IDP_ISSUER: the company IdP's issuer (OpenID discovery at `<issuer>/.well-known/openid-configuration`). */
  readonly idpIssuer: string;
  /** MCP_AS_IDP_CLIENT_ID: our public client there (PKCE), redirect URI `<origin>/oauth/callback`. */
  readonly idpClientId: string;
  /** MCP_OAUTH_PROFILES: scope → profile (`*` the whole deployment), the scopes a client may ask for; unset: the server's `mcp:tools=*`. */
  readonly scopes?: Readonly<Record<string, string>>;
  /** MCP_AS_GROUPS_CLAIM: the ID-token claim listing a person's groups (the server's default: `groups`; Cognito: `cognito:groups`). */
  readonly groupsClaim?: string;
  /**
   * MCP_AS_SCOPE_GROUPS: scope → the groups whose people may approve it (`*`: everyone signed in).
   * Set, a scope it does not name goes to nobody; unset, everyone the provider signs in may approve every scope.
   */
  readonly scopeGroups?: Readonly<Record<string, readonly string[]>>;
  /**
   * The signing key that signs now (MCP_AS_KEY_ID): generation 1 is the first key, each rotation
   * a new generation (a new KMS key, alias `…-issuer-<n>` past 1). Default 1.
   */
  readonly keyGeneration?: number;
  /**
   * MCP_AS_PREVIOUS_KEY_IDS: the generations a rotation retired whose access tokens may still live
   * (10 minutes): published and accepted, never signing. Drop them one deployment later.
   */
  readonly previousKeyGenerations?: readonly number[];
}

export const OAUTH_DEFAULTS = {
  apiKeys: true,
  frontDoor: 'cloudfront' as FrontDoor,
  cognito: { scopes: { tools: '*' }, confidentialClient: false, selfSignUp: false, mfa: 'optional' as const },
};

const HTTPS_URL = /^https:\/\/[^\s/?#]+(\/[^\s?#]*)?$/;
// Cognito: lower-case letters, digits and hyphens, not starting or ending with a hyphen.
const DOMAIN_PREFIX = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
// Cognito's patterns for a resource server identifier and a scope name (no `/` in a scope name).
const RESOURCE_SERVER_ID = /^[\x21\x23-\x5B\x5D-\x7E]{1,256}$/;
const SCOPE_NAME = /^[\x21\x23-\x2E\x30-\x5B\x5D-\x7E]{1,256}$/;
/** Cognito's limit on a group name (a scope's group has the scope's name). */
export const COGNITO_GROUP_NAME_MAX = 128;
const CLAIM = /^[A-Za-z0-9_:.-]{1,128}$/;
// A value in MCP_OAUTH_PROFILES / MCP_OAUTH_AUDIENCE: the lists are `,`-separated `value=profile`.
const LIST_VALUE = /^[^\s,=]{1,512}$/;
// Cognito accepts https callbacks, and plain http for localhost only.
const CALLBACK = /^(https:\/\/[^\s/?#]+|http:\/\/localhost(:\d{1,5})?)(\/[^\s#]*)?$/;

/** The front door a raw `oauth` object asks for, before validation (the custom domain's certificate region depends on it). */
export function requestedFrontDoor(raw: unknown): FrontDoor | undefined {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return undefined;
  const door = (raw as Json).frontDoor;
  return door === undefined ? OAUTH_DEFAULTS.frontDoor : door === 'api-gateway' ? 'api-gateway' : 'cloudfront';
}

export interface OAuthContext {
  /** The profiles defined in `profiles` (what a scope or claim value may grant, besides `*`). */
  readonly profiles: readonly string[];
  /** The custom domain, which the resource URL must be on when both are given. */
  readonly customDomain?: string;
  /** The mcp-server timeout: a key-set fetch must end well before it. */
  readonly timeoutMs: number;
}

export function parseOAuthConfig(c: Checker, raw: unknown, ctx: OAuthContext): OAuthConfig | undefined {
  if (raw === undefined) return undefined;
  const o = c.object('oauth', raw, ['cognito', 'external', 'authorizationServer', 'resourceUrl', 'apiKeys', 'frontDoor', 'algorithms', 'leewaySeconds', 'fetchTimeoutMs', 'tokenTypes']);
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return undefined; // reported by c.object

  let resourceUrl: string | undefined;
  if (o.resourceUrl !== undefined) {
    resourceUrl = c.string('oauth.resourceUrl', o.resourceUrl, /^https:\/\/[^\s/?#]+\/mcp$/, 'the https URL clients connect to, ending in /mcp (e.g. `https://mcp.example.com/mcp`)');
    const host = resourceUrl?.slice('https://'.length, -'/mcp'.length);
    if (host !== undefined && !HOST.test(host)) c.problem('oauth.resourceUrl', `\`${host}\` is not a lower-case host name`);
    if (host !== undefined && ctx.customDomain && host !== ctx.customDomain) {
      c.problem('oauth.resourceUrl', `must be on the custom domain \`${ctx.customDomain}\` (clients connect there, and the tokens are bound to this URL), not on \`${host}\``);
    }
  }
  const apiKeys = c.boolean('oauth.apiKeys', o.apiKeys, OAUTH_DEFAULTS.apiKeys);
  const frontDoor = (c.string('oauth.frontDoor', o.frontDoor, /^(cloudfront|api-gateway)$/, '`cloudfront` or `api-gateway`') ?? OAUTH_DEFAULTS.frontDoor) as FrontDoor;
  const algorithms = o.algorithms === undefined ? undefined : c.list('oauth.algorithms', o.algorithms, new RegExp(`^(${OAUTH_ALGORITHMS.join('|')})$`), `signature algorithms (${OAUTH_ALGORITHMS.join(', ')})`);
  if (Array.isArray(o.algorithms) && o.algorithms.length === 0) c.problem('oauth.algorithms', 'name at least one algorithm, or leave the key out for the server default');
  const leewaySeconds = o.leewaySeconds === undefined ? undefined : c.integer('oauth.leewaySeconds', o.leewaySeconds, 30, 0, 300);
  // A cold start's first token check may fetch metadata and keys: both inside one call.
  const maxFetch = Math.max(100, Math.min(10_000, Math.floor(ctx.timeoutMs / 3)));
  const fetchTimeoutMs = o.fetchTimeoutMs === undefined ? undefined : c.integer('oauth.fetchTimeoutMs', o.fetchTimeoutMs, 2000, 100, maxFetch);
  const tokenTypes = o.tokenTypes === undefined ? undefined : c.list('oauth.tokenTypes', o.tokenTypes, /^(none|[A-Za-z0-9+./-]{1,64})$/, 'header `typ` values (`at+jwt`, `JWT`) or `none`');
  if (Array.isArray(o.tokenTypes) && o.tokenTypes.length === 0) c.problem('oauth.tokenTypes', 'name at least one type, or leave the key out for the server default');

  const servers = (['cognito', 'external', 'authorizationServer'] as const).filter((k) => o[k] !== undefined);
  if (servers.length !== 1) {
    c.problem('oauth', servers.length === 0
      ? 'give the authorization server: `cognito` (a user pool created here), `external` (an existing one, by issuer) ' +
        'or `authorizationServer` (mcp-server itself, people signing in at the company\'s identity provider)'
      : `give one of \`cognito\`, \`external\` and \`authorizationServer\`, not ${servers.map((k) => `\`${k}\``).join(' and ')}: each names the tokens' issuer (MCP_OAUTH_ISSUER)`);
  }
  const grantable = ['*', ...ctx.profiles];
  const cognito = o.cognito === undefined ? undefined : parseCognito(c, o.cognito, grantable);
  const external = o.external === undefined ? undefined : parseExternal(c, o.external, grantable);
  const authorizationServer = o.authorizationServer === undefined ? undefined : parseAuthorizationServer(c, o.authorizationServer, grantable);
  if (authorizationServer) {
    // Our own tokens: ES256, header `typ: at+jwt` (issuer/token.rs); refusing them would lock everyone out.
    if (algorithms && !algorithms.includes('ES256')) c.problem('oauth.algorithms', 'must include `ES256` with `authorizationServer`: our access tokens are signed with it (a KMS P-256 key)');
    if (tokenTypes && !tokenTypes.some((t) => t.toLowerCase() === 'at+jwt')) c.problem('oauth.tokenTypes', 'must include `at+jwt` with `authorizationServer`: the type our access tokens carry');
  }

  return {
    ...(resourceUrl ? { resourceUrl } : {}),
    apiKeys, frontDoor,
    ...(algorithms ? { algorithms } : {}),
    ...(leewaySeconds === undefined ? {} : { leewaySeconds }),
    ...(fetchTimeoutMs === undefined ? {} : { fetchTimeoutMs }),
    ...(tokenTypes ? { tokenTypes } : {}),
    ...(cognito ? { cognito } : {}),
    ...(external ? { external } : {}),
    ...(authorizationServer ? { authorizationServer } : {}),
  };
}

function parseAuthorizationServer(c: Checker, raw: unknown, grantable: readonly string[]): AuthorizationServerConfig {
  const p = 'oauth.authorizationServer';
  const a = c.object(p, raw, ['idpIssuer', 'idpClientId', 'scopes', 'groupsClaim', 'scopeGroups', 'keyGeneration', 'previousKeyGenerations']);
  const idpIssuer = c.required(`${p}.idpIssuer`, c.string(`${p}.idpIssuer`, a.idpIssuer, HTTPS_URL,
    'the https issuer URL of the company\'s OpenID provider (its discovery document is at <issuer>/.well-known/openid-configuration)'),
  'the issuer people sign in at (MCP_AS_IDP_ISSUER), e.g. `https://login.example.com/realms/company`');
  const idpClientId = c.required(`${p}.idpClientId`, c.string(`${p}.idpClientId`, a.idpClientId, /^[\x21-\x7e]{1,256}$/,
    'an OAuth client id (printable characters, no spaces)'),
  'our public client (PKCE) at that provider, whose redirect URI is <origin>/oauth/callback (MCP_AS_IDP_CLIENT_ID)');
  const scopes = a.scopes === undefined ? undefined
    : grants(c, `${p}.scopes`, a.scopes, SCOPE_NAME, 'scope → profile (`*` for the whole deployment)', 'scope names are printable ASCII without `/`, spaces, quotes or backslashes', grantable);
  if (scopes) {
    for (const name of Object.keys(scopes)) {
      // MCP_OAUTH_PROFILES is `value=profile,…`: a comma or `=` in a scope would break it.
      if (/[,=]/.test(name)) c.problem(`${p}.scopes.${name}`, 'no `,` or `=` in a scope name');
    }
  }
  const groupsClaim = c.string(`${p}.groupsClaim`, a.groupsClaim, /^[\x21-\x7e]{1,128}$/, 'a claim name (printable characters, no spaces)');
  const scopeGroups = parseScopeGroups(c, `${p}.scopeGroups`, a.scopeGroups, Object.keys(scopes ?? { 'mcp:tools': '*' }));
  const keyGeneration = c.integer(`${p}.keyGeneration`, a.keyGeneration, 1, 1, 1000);
  const previous = parsePreviousGenerations(c, `${p}.previousKeyGenerations`, a.previousKeyGenerations, keyGeneration);
  return {
    idpIssuer, idpClientId, ...(scopes ? { scopes } : {}), ...(groupsClaim ? { groupsClaim } : {}), ...(scopeGroups ? { scopeGroups } : {}),
    ...(keyGeneration !== 1 ? { keyGeneration } : {}), ...(previous.length > 0 ? { previousKeyGenerations: previous } : {}),
  };
}

/** Earlier generations than the current one, each once. */
function parsePreviousGenerations(c: Checker, p: string, raw: unknown, current: number): number[] {
  if (raw === undefined) return [];
  if (!Array.isArray(raw)) {
    c.problem(p, 'expected a list of key generations, e.g. [1]');
    return [];
  }
  const out = raw.map((g, i) => c.integer(`${p}[${i}]`, g, 0, 1, 1000)).filter((g) => g > 0);
  for (const g of out) {
    if (g >= current) c.problem(p, `generation ${g} is not earlier than keyGeneration ${current}`);
  }
  if (new Set(out).size !== out.length) c.problem(p, 'names a generation twice');
  return out;
}

/** scope → groups: each scope one the clients may ask for, each group a name without `,`, `=` or spaces (or `*`). */
function parseScopeGroups(c: Checker, p: string, raw: unknown, known: readonly string[]): Readonly<Record<string, readonly string[]>> | undefined {
  if (raw === undefined) return undefined;
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    c.problem(p, 'expected scope → list of groups, e.g. {"mcp:accounting": ["finance"]}');
    return undefined;
  }
  const out: Record<string, readonly string[]> = {};
  for (const [scope, groups] of Object.entries(raw)) {
    if (!known.includes(scope)) c.problem(`${p}.${scope}`, `not a scope clients may ask for (${known.join(', ')})`);
    const list = c.list(`${p}.${scope}`, groups, /^[^\s,=]{1,256}$/, 'group names without spaces, `,` or `=` (`*`: everyone signed in)');
    if (list.length === 0) c.problem(`${p}.${scope}`, 'names no group: leave the scope out to give it to nobody');
    out[scope] = list;
  }
  return out;
}

function parseCognito(c: Checker, raw: unknown, grantable: readonly string[]): CognitoConfig {
  const p = 'oauth.cognito';
  const g = c.object(p, raw, ['domainPrefix', 'resourceServerId', 'scopes', 'callbackUrls', 'confidentialClient', 'selfSignUp', 'selfSignUpScopes', 'mfa']);
  const domainPrefix = c.required(`${p}.domainPrefix`, c.string(`${p}.domainPrefix`, g.domainPrefix, DOMAIN_PREFIX,
    'lower-case letters, digits and hyphens (up to 63), e.g. `acme-mcp`'), 'the prefix of the user-pool domain <prefix>.auth.<region>.amazoncognito.com');
  if (domainPrefix && /aws|amazon|cognito/.test(domainPrefix)) {
    c.problem(`${p}.domainPrefix`, 'Cognito refuses prefixes containing `aws`, `amazon` or `cognito`');
  }
  const resourceServerId = c.string(`${p}.resourceServerId`, g.resourceServerId, RESOURCE_SERVER_ID, 'a Cognito resource server identifier (printable ASCII without spaces, quotes or backslashes), e.g. the resource URL');
  const scopes = g.scopes === undefined
    ? OAUTH_DEFAULTS.cognito.scopes
    : grants(c, `${p}.scopes`, g.scopes, SCOPE_NAME, 'scope name → profile (`*` for the whole deployment)', 'scope names are printable ASCII without `/`, spaces, quotes or backslashes', grantable);
  for (const name of Object.keys(scopes)) {
    // Each scope has a Cognito group of the same name, and group names end at 128 characters.
    if (name.length > COGNITO_GROUP_NAME_MAX) c.problem(`${p}.scopes.${name}`, `at most ${COGNITO_GROUP_NAME_MAX} characters (it also names the Cognito group whose members receive it)`);
  }
  const selfSignUp = c.boolean(`${p}.selfSignUp`, g.selfSignUp, OAUTH_DEFAULTS.cognito.selfSignUp);
  const selfSignUpScopes = c.list(`${p}.selfSignUpScopes`, g.selfSignUpScopes, SCOPE_NAME, 'scope names from `scopes`');
  if (selfSignUp && g.selfSignUpScopes === undefined) {
    c.problem(`${p}.selfSignUp`, 'anyone who verifies an e-mail address can then sign in: say what such a person may reach with ' +
      '`selfSignUpScopes` (scope names from `scopes`; `[]`: nothing until an admin adds them to a group)');
  }
  if (!selfSignUp && g.selfSignUpScopes !== undefined) {
    c.problem(`${p}.selfSignUpScopes`, 'only with `selfSignUp: true` (without it everyone is admin-created and gets scopes through groups)');
  }
  for (const name of selfSignUpScopes) {
    if (!Object.hasOwn(scopes, name)) c.problem(`${p}.selfSignUpScopes`, `\`${name}\` is not a scope of \`scopes\` (${Object.keys(scopes).map((k) => `\`${k}\``).join(', ')})`);
  }
  const callbackUrls = c.list(`${p}.callbackUrls`, g.callbackUrls, CALLBACK, 'https URLs, or http://localhost:<port>/… (Cognito allows plain http for localhost only)');
  for (const url of callbackUrls) {
    if ((CLAUDE_CALLBACK_URLS as readonly string[]).includes(url)) c.problem(`${p}.callbackUrls`, `\`${url}\` is always registered; list only extra callbacks`);
  }
  return {
    domainPrefix,
    ...(resourceServerId ? { resourceServerId } : {}),
    scopes,
    callbackUrls,
    confidentialClient: c.boolean(`${p}.confidentialClient`, g.confidentialClient, OAUTH_DEFAULTS.cognito.confidentialClient),
    selfSignUp,
    selfSignUpScopes: selfSignUp ? selfSignUpScopes : [],
    mfa: (c.string(`${p}.mfa`, g.mfa, /^(off|optional|required)$/, '`off`, `optional` or `required`') ?? OAUTH_DEFAULTS.cognito.mfa) as CognitoConfig['mfa'],
  };
}

function parseExternal(c: Checker, raw: unknown, grantable: readonly string[]): ExternalIssuerConfig {
  const p = 'oauth.external';
  const e = c.object(p, raw, ['issuer', 'audienceClaim', 'audience', 'profileClaim', 'profiles']);
  const issuer = c.required(`${p}.issuer`, c.string(`${p}.issuer`, e.issuer, HTTPS_URL, 'the https issuer URL, exactly as the tokens\' `iss` says it'), 'the authorization server\'s issuer URL (MCP_OAUTH_ISSUER)');
  const audienceClaim = c.string(`${p}.audienceClaim`, e.audienceClaim, CLAIM, 'a claim name such as `aud` or `client_id`');
  const audience = e.audience === undefined ? undefined : c.list(`${p}.audience`, e.audience, LIST_VALUE, 'accepted values of the audience claim (no spaces, commas or =)');
  if (Array.isArray(e.audience) && e.audience.length === 0) c.problem(`${p}.audience`, 'name at least one value, or leave the key out (then the resource URL)');
  const profileClaim = c.string(`${p}.profileClaim`, e.profileClaim, CLAIM, 'a claim name such as `scope`, `scp`, `roles` or `groups`');
  const profiles = e.profiles === undefined ? undefined
    : grants(c, `${p}.profiles`, e.profiles, LIST_VALUE, 'claim value → profile (`*` for the whole deployment)', 'claim values contain no spaces, commas or =', grantable);
  return {
    issuer,
    ...(audienceClaim ? { audienceClaim } : {}),
    ...(audience ? { audience } : {}),
    ...(profileClaim ? { profileClaim } : {}),
    ...(profiles ? { profiles } : {}),
  };
}

/** `{ value: profile }`, each profile `*` or a defined one, at least one entry. */
function grants(c: Checker, path: string, raw: unknown, key: RegExp, what: string, keyRule: string, grantable: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    c.problem(path, `expected an object of ${what}, got ${describe(raw)}`);
    return out;
  }
  if (Object.keys(raw).length === 0) c.problem(path, `needs at least one ${what}`);
  for (const [name, profile] of Object.entries(raw)) {
    if (!key.test(name)) c.problem(`${path}.${name}`, keyRule);
    else if (typeof profile !== 'string' || !grantable.includes(profile)) {
      c.problem(`${path}.${name}`, `${describe(profile)} is neither \`*\` nor a profile defined in \`profiles\``);
    } else {
      out[name] = profile;
    }
  }
  return out;
}
