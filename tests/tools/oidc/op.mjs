#!/usr/bin/env node
// A real OpenID provider (npm `oidc-provider`, pinned in tests/tools/node) on 127.0.0.1 for the
// OAuth end-to-end tests; tests/src/oidc.rs starts and stops it. Test-only: open dynamic client
// registration, a fixed client_credentials client and automatic login and consent.
//
//   .tools/node/node_modules/.bin/node tests/tools/oidc/op.mjs --port 0 \
//       --resource http://127.0.0.1:8767/mcp --scopes "mcp:tools mcp:bookkeeping"
//
// Options:
//   --port N             listen on 127.0.0.1:N (0, the default: a port from the OS)
//   --resource URL       the resource indicator prefix: URL itself and every URL + "/…" is a
//                        resource this provider issues access tokens for (JWT, RS256, aud = the
//                        indicator, 300 s); also the default resource when a request names none
//   --scopes "A B"       the resource's scopes (default "mcp:tools")
//   --key-generation N   signing key ids rs-N (RS256) and es-N (ES256); default 1. A restart with
//                        another N is a key rotation.
//   --keys FILE          keep the private signing keys in FILE: read it when it exists, else write
//                        the generated ones there (a restart with the same keys)
//   --groups ACCOUNT=G1,G2
//                        the account's `groups` claim (in its ID token, with the `openid`
//                        scope); repeatable, one account each. Accounts not named have none.
//   --exit-with-stdin    exit when stdin closes (the harness holds its end: no orphan provider
//                        outlives a killed test process)
//
// The flow needs no person: GET /interaction/<uid> logs in the authorization request's
// `login_hint` (else "test-user") and consents to every requested scope. The client
// `svc` / `svc-secret` (client_secret_basic or _post) may use client_credentials.
//
// Test control endpoints on the same port, under /test/ (a loopback test harness; never expose):
//   POST /test/mint      {claims?, header?, mode?, alg?} -> {token, header, claims}: a JWT access
//                        token made here, not through a grant. claims default to {iss, sub:
//                        "test-user", aud: <resource>, iat: now, exp: now + 300, scope: "mcp:tools",
//                        client_id: "svc"}; given claims and header fields override, null removes.
//                        alg: RS256 (default, kid rs-N) or ES256 (kid es-N). mode:
//                          sign             signed with the provider's own key (in its JWKS)
//                          none             `alg: none`, empty signature (header still names kid)
//                          hmac-public-key  HS256 keyed with the RSA public key's SPKI PEM text,
//                                           kid of the RSA key (the algorithm-confusion attack)
//                          foreign-key      signed by a key not in the JWKS, under a JWKS kid (or
//                                           header.kid: an unknown kid)
//                          bad-signature    a `sign` token with one signature byte changed
//                        Header overrides change the header only, never the key or algorithm used.
//   GET  /test/requests  {"<path>": count}: requests the provider has seen per path (no /test/)
//   POST /test/clock     {advance_s} -> {offset_s}: the provider's clock (Date.now) runs that much
//                        ahead from now on: grants, refresh tokens and sessions age at once
//
// --refresh-ttl SECONDS: how long a refresh token and its grant live (default 3600); Google's
// refresh tokens of an app in testing mode live 7 days (604800).
//
// Prints `oidc-provider listening issuer=http://127.0.0.1:PORT` on stdout once it accepts
// requests. Exits with 0 on SIGTERM or SIGINT.

import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const here = path.dirname(fileURLToPath(import.meta.url));

function options() {
  const { values } = parseArgs({
    options: {
      port: { type: 'string', default: '0' },
      resource: { type: 'string' },
      scopes: { type: 'string', default: 'mcp:tools' },
      'key-generation': { type: 'string', default: '1' },
      keys: { type: 'string' },
      groups: { type: 'string', multiple: true, default: [] },
      'exit-with-stdin': { type: 'boolean', default: false },
      'refresh-ttl': { type: 'string', default: '3600' },
    },
  });
  const groups = new Map();
  for (const entry of values.groups) {
    const [account, list] = entry.split('=');
    if (!account || list === undefined) fail(`--groups ${entry}: ACCOUNT=G1,G2`);
    groups.set(account, list.split(',').filter(Boolean));
  }
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) fail(`--port ${values.port}: not a port`);
  if (!values.resource) fail('--resource URL is required');
  try {
    new URL(values.resource);
  } catch {
    fail(`--resource ${values.resource}: not a URL`);
  }
  const refreshTtl = Number(values['refresh-ttl']);
  if (!Number.isInteger(refreshTtl) || refreshTtl < 1) fail(`--refresh-ttl ${values['refresh-ttl']}: not seconds`);
  const scopes = values.scopes.split(/\s+/).filter(Boolean);
  if (scopes.length === 0) fail('--scopes: at least one scope');
  return {
    port,
    resource: values.resource,
    scopes,
    generation: values['key-generation'],
    keysFile: values.keys,
    groups,
    exitWithStdin: values['exit-with-stdin'],
    refreshTtl,
  };
}

function fail(message) {
  console.error(`op.mjs: ${message}`);
  process.exit(2);
}

// oidc-provider lives in .tools/node (tests/tools/install.sh), not beside this file.
async function loadOidcProvider() {
  const tools = process.env.HOSTED_MCP_TOOLS ?? path.resolve(here, '../../../.tools');
  const require = createRequire(path.join(tools, 'node', 'package.json'));
  let entry;
  try {
    entry = require.resolve('oidc-provider');
  } catch {
    fail(`oidc-provider is not installed under ${tools}/node: run tests/tools/install.sh`);
  }
  return import(pathToFileURL(entry).href);
}

// The provider's signing keys as private JWKs: RS256 first (what access tokens use), ES256 second.
function signingKeys(generation, keysFile) {
  if (keysFile && fs.existsSync(keysFile)) return JSON.parse(fs.readFileSync(keysFile, 'utf8')).keys;
  const rsa = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
  const ec = crypto.generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
  const keys = [
    { ...rsa.export({ format: 'jwk' }), kid: `rs-${generation}`, alg: 'RS256', use: 'sig' },
    { ...ec.export({ format: 'jwk' }), kid: `es-${generation}`, alg: 'ES256', use: 'sig' },
  ];
  if (keysFile) fs.writeFileSync(keysFile, JSON.stringify({ keys }), { mode: 0o600 });
  return keys;
}

// --- /test/mint ------------------------------------------------------------------------------

const b64url = (value) => Buffer.from(value).toString('base64url');

// `base` with `overrides` applied; an override of null removes the field.
function merged(base, overrides) {
  const out = { ...base };
  for (const [k, v] of Object.entries(overrides ?? {})) {
    if (v === null) delete out[k];
    else out[k] = v;
  }
  return out;
}

function signature(alg, key, input) {
  if (alg === 'RS256') return crypto.sign('sha256', Buffer.from(input), key);
  // JWS wants ECDSA signatures as r || s, not DER.
  return crypto.sign('sha256', Buffer.from(input), { key, dsaEncoding: 'ieee-p1363' });
}

class BadRequest extends Error {}

function makeMinter({ issuer, resource, jwks }) {
  const own = {};
  for (const jwk of jwks) {
    own[jwk.alg] = { kid: jwk.kid, key: crypto.createPrivateKey({ key: jwk, format: 'jwk' }) };
  }
  const foreign = {
    RS256: crypto.generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey,
    ES256: crypto.generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey,
  };
  const rsaPublicPem = crypto.createPublicKey(own.RS256.key).export({ type: 'spki', format: 'pem' });

  return function mint({ claims, header, mode = 'sign', alg = 'RS256' } = {}) {
    if (!['RS256', 'ES256'].includes(alg)) throw new BadRequest(`alg ${alg}: RS256 or ES256`);
    const modes = ['sign', 'none', 'hmac-public-key', 'foreign-key', 'bad-signature'];
    if (!modes.includes(mode)) throw new BadRequest(`mode ${mode}: one of ${modes.join(', ')}`);
    for (const [name, value] of [['claims', claims], ['header', header]]) {
      if (value !== undefined && (typeof value !== 'object' || value === null || Array.isArray(value))) {
        throw new BadRequest(`${name}: a JSON object`);
      }
    }
    const now = Math.floor(Date.now() / 1000);
    const payload = merged(
      { iss: issuer, sub: 'test-user', aud: resource, iat: now, exp: now + 300, scope: 'mcp:tools', client_id: 'svc' },
      claims,
    );
    const signAlg = { none: 'none', 'hmac-public-key': 'HS256' }[mode] ?? alg;
    const kid = mode === 'hmac-public-key' ? own.RS256.kid : own[alg].kid;
    const head = merged({ alg: signAlg, typ: 'at+jwt', kid }, header);
    const input = `${b64url(JSON.stringify(head))}.${b64url(JSON.stringify(payload))}`;

    let sig;
    if (mode === 'none') {
      sig = Buffer.alloc(0);
    } else if (mode === 'hmac-public-key') {
      sig = crypto.createHmac('sha256', rsaPublicPem).update(input).digest();
    } else if (mode === 'foreign-key') {
      sig = signature(alg, foreign[alg], input);
    } else {
      sig = signature(alg, own[alg].key, input);
      if (mode === 'bad-signature') sig[sig.length >> 1] ^= 0x01;
    }
    return { token: `${input}.${b64url(sig)}`, header: head, claims: payload };
  };
}

function readJson(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('error', reject);
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8').trim();
      if (!text) return resolve({});
      try {
        resolve(JSON.parse(text));
      } catch (e) {
        reject(new BadRequest(`body is not JSON: ${e.message}`));
      }
    });
  });
}

// Date.now runs `offset` ms ahead: oidc-provider reads the time through it alone.
const realNow = Date.now;
let offset = 0;
Date.now = () => realNow() + offset;
function advanceClock(seconds) {
  if (!Number.isInteger(seconds) || seconds < 0) throw new Error('advance_s: whole seconds >= 0');
  offset += seconds * 1000;
  return offset / 1000;
}

function sendJson(res, status, body) {
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
  res.end(JSON.stringify(body));
}

async function testEndpoint(req, res, pathname, { mint, seen }) {
  try {
    if (pathname === '/test/mint' && req.method === 'POST') {
      return sendJson(res, 200, mint(await readJson(req)));
    }
    if (pathname === '/test/clock' && req.method === 'POST') {
      return sendJson(res, 200, { offset_s: advanceClock((await readJson(req)).advance_s) });
    }
    if (pathname === '/test/requests' && req.method === 'GET') {
      return sendJson(res, 200, Object.fromEntries(seen));
    }
    return sendJson(res, 404, { error: 'not_found', message: `${req.method} ${pathname}` });
  } catch (e) {
    if (e instanceof BadRequest) return sendJson(res, 400, { error: 'bad_request', message: e.message });
    console.error('op.mjs: test endpoint failed', e);
    return sendJson(res, 500, { error: 'server_error', message: String(e) });
  }
}

// --- the provider --------------------------------------------------------------------------

function providerConfig({ resource, scopes, jwks, errors, groups, refreshTtl }) {
  const base = resource.replace(/\/+$/, '');
  const isOurs = (indicator) => indicator === resource || indicator.startsWith(`${base}/`);
  const rsKid = jwks.find((k) => k.alg === 'RS256').kid;
  return {
    jwks: { keys: jwks },
    clients: [
      {
        client_id: 'svc',
        client_secret: 'svc-secret',
        grant_types: ['client_credentials'],
        response_types: [],
        redirect_uris: [],
        token_endpoint_auth_method: 'client_secret_basic',
      },
    ],
    scopes: ['openid', 'offline_access', ...scopes],
    responseTypes: ['code'], // OAuth 2.1: no implicit flow
    features: {
      devInteractions: { enabled: false }, // replaced by the automatic login/consent below
      registration: { enabled: true }, // RFC 7591, open: no initial access token
      clientCredentials: { enabled: true },
      revocation: { enabled: true }, // RFC 7009, for disconnects that revoke the grant
      resourceIndicators: {
        enabled: true,
        defaultResource: async (_ctx, _client, oneOf) => {
          if (!oneOf) return resource;
          return oneOf.includes(resource) ? resource : oneOf[0];
        },
        useGrantedResource: async () => true,
        getResourceServerInfo: async (_ctx, indicator) => {
          if (!isOurs(indicator)) throw new errors.InvalidTarget(`this provider knows no resource ${indicator}`);
          return {
            scope: scopes.join(' '),
            accessTokenFormat: 'jwt',
            accessTokenTTL: 300,
            jwt: { sign: { alg: 'RS256', kid: rsKid } },
          };
        },
      },
    },
    // A registered client's `scope` is no limit on what it may ask for later (as on Keycloak or
    // Entra ID), so a test can ask the authorization request for other scopes than the SDK
    // registered with (python_client.py --oauth-scope).
    extraClientMetadata: {
      properties: ['hosted_mcp_test'],
      validator: (ctx, _key, _value, metadata) => {
        if (ctx) delete metadata.scope;
      },
    },
    pkce: { required: () => true },
    // Any account exists; its id is the subject. Groups (--groups) go into the ID token.
    findAccount: async (_ctx, sub) => ({
      accountId: sub,
      claims: async () => (groups.has(sub) ? { sub, groups: groups.get(sub) } : { sub }),
    }),
    claims: { openid: ['sub', 'groups'] },
    conformIdTokenClaims: false,
    cookies: { keys: [crypto.randomBytes(32).toString('hex')] },
    clientBasedCORS: () => true,
    // Errors as JSON, so a failing flow shows the reason in the client's message.
    renderError: async (ctx, out) => {
      ctx.type = 'json';
      ctx.body = out;
    },
    ttl: {
      AccessToken: 300,
      AuthorizationCode: 60,
      ClientCredentials: 300,
      Grant: refreshTtl,
      IdToken: 300,
      Interaction: 600,
      RefreshToken: refreshTtl,
      Session: 3600,
    },
  };
}

// Automatic login (the request's login_hint, else test-user) and consent to everything asked.
function automaticInteractions(provider) {
  return async (ctx, next) => {
    if (ctx.method !== 'GET' || !/^\/interaction\/[^/]+$/.test(ctx.path)) return next();
    const { prompt, params, session, grantId } = await provider.interactionDetails(ctx.req, ctx.res);
    let result;
    if (prompt.name === 'login') {
      result = { login: { accountId: String(params.login_hint || 'test-user') } };
    } else {
      const grant = grantId
        ? await provider.Grant.find(grantId)
        : new provider.Grant({ accountId: session.accountId, clientId: params.client_id });
      const missing = prompt.details;
      if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(' '));
      if (missing.missingOIDCClaims) grant.addOIDCClaims(missing.missingOIDCClaims);
      for (const [indicator, scope] of Object.entries(missing.missingResourceScopes ?? {})) {
        grant.addResourceScope(indicator, scope.join(' '));
      }
      result = { consent: { grantId: await grant.save() } };
    }
    const to = await provider.interactionResult(ctx.req, ctx.res, result, { mergeWithLastSubmission: true });
    ctx.redirect(to);
    ctx.status = 303;
  };
}

async function main() {
  const opts = options();
  const { Provider, errors } = await loadOidcProvider();
  const jwks = signingKeys(opts.generation, opts.keysFile);

  const server = http.createServer();
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, '127.0.0.1', resolve);
  });
  const issuer = `http://127.0.0.1:${server.address().port}`;

  const provider = new Provider(issuer, providerConfig({ ...opts, jwks, errors }));
  provider.on('server_error', (_ctx, err) => console.error('op.mjs: server_error', err));
  provider.use(automaticInteractions(provider));
  const handle = provider.callback();

  const seen = new Map();
  const test = { mint: makeMinter({ issuer, resource: opts.resource, jwks }), seen };
  server.on('request', (req, res) => {
    const { pathname } = new URL(req.url, issuer);
    if (pathname.startsWith('/test/')) return testEndpoint(req, res, pathname, test);
    seen.set(pathname, (seen.get(pathname) ?? 0) + 1);
    return handle(req, res);
  });

  const stop = () => {
    server.closeAllConnections();
    server.close(() => process.exit(0));
    setTimeout(() => process.exit(0), 1000).unref();
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  if (opts.exitWithStdin) {
    process.stdin.on('end', stop);
    process.stdin.on('close', stop);
    process.stdin.resume();
  }

  console.log(`oidc-provider listening issuer=${issuer}`);
}

main().catch((e) => {
  console.error('op.mjs: failed to start:', e);
  process.exit(1);
});
