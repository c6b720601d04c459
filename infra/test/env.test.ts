// The Lambda environments against the names the Rust code reads (functions/<fn>/src/config.rs),
// so a renamed or new variable fails here instead of on the first deployed request.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import { ORIGIN_VERIFY } from '../src/front-door.ts';
import { MCP_ENV, callDeadlineMs, jobWaitMs } from '../src/mcp-stack.ts';
import { BINARIES } from '../src/names.ts';
import { OAUTH_ENV } from '../src/oauth.ts';
import { functionConfigRs } from '../src/paths.ts';
import { VAULT_ENV } from '../src/vault.ts';
import { AS_ENV } from '../src/authorization-server.ts';
import { parseCatalog } from '../src/catalogs.ts';
import { REPO_ROOT } from '../src/paths.ts';
import { CATALOGS, OAUTH_CERTIFICATE_ARN, logicalId, merge, synth, testConfig } from './helpers.ts';

/** The shipped catalogs and one that declares `inbound`, so every variable is set. */
const WITH_INBOUND = [...CATALOGS, parseCatalog(readFileSync(join(REPO_ROOT, 'tests/catalogs/inbound/chat.yaml'), 'utf8'), 'chat.yaml')];
const CONNECTORS = WITH_INBOUND.map((c) => c.connector);

interface RustNames {
  /** Every `pub const X: &str = "NAME";` value. */
  readonly all: Set<string>;
  /** The values listed in `pub const ALL` (the fixed variable names). */
  readonly fixed: Set<string>;
  /** Values starting with `_`: per-connector suffixes (`_EXPOSE_RAW`, `_BASE_URL`). */
  readonly suffixes: Set<string>;
}

/** `pub const X: &str = "NAME";` of a Rust file, by identifier. */
function stringConsts(path: string): Map<string, string> {
  const consts = new Map<string, string>();
  for (const m of readFileSync(path, 'utf8').matchAll(/pub(?:\([a-z]+\))? const (\w+): &str = "([^"]*)";/g)) consts.set(m[1]!, m[2]!);
  return consts;
}

/** The names a function's config.rs declares; `ALL` may point into other modules (`crate::m::X`). */
export function rustEnvNames(path: string): RustNames {
  const text = readFileSync(path, 'utf8');
  const consts = stringConsts(path);
  const srcDir = dirname(path);
  const resolve = (ref: string): string | undefined => {
    const parts = ref.split('::');
    const ident = parts.pop()!;
    if (parts.length === 0) return consts.get(ident);
    // `crate::a::b::X` from the crate's src/; `a::b::X` a sibling module of config.rs, or one a
    // `use crate::a;` brought in (then from the crate's src/).
    const fromCrate = parts[0] === 'crate';
    const modules = fromCrate ? parts.slice(1) : parts;
    const crateSrc = srcDir.endsWith('/src') ? srcDir : srcDir.slice(0, srcDir.lastIndexOf('/src/') + 4);
    for (const dir of fromCrate ? [crateSrc] : [srcDir, crateSrc]) {
      const base = join(dir, ...modules);
      const file = [`${base}.rs`, join(base, 'mod.rs')].find(existsSync);
      const value = file ? stringConsts(file).get(ident) : undefined;
      if (value !== undefined) return value;
    }
    return undefined;
  };
  const allBlock = /pub(?:\([a-z]+\))? const ALL: &\[&str\] = &\[([^\]]*)\]/.exec(text)?.[1] ?? '';
  const fixed = new Set(
    allBlock.split(',').map((s) => s.trim()).filter(Boolean).map((ref) => {
      const v = resolve(ref);
      if (v === undefined) throw new Error(`${path}: ALL lists ${ref}, which is no string const found`);
      return v;
    }),
  );
  const values = [...consts.values(), ...fixed];
  return { all: new Set(values), fixed, suffixes: new Set(values.filter((v) => v.startsWith('_'))) };
}

/** config.rs names an hosted deployment must not set, and why. */
const NOT_ON_LAMBDA: Record<string, string> = {
  MCP_API_KEYS: 'local only: keys come from the deployment secret',
  MCP_PSEUDONYM_PEPPER: 'local only: the pepper comes from the deployment secret',
  MCP_CONFIRMATION_KEYS: 'local only: the signing keys come from the deployment secret (`confirmation_keys`)',
  MCP_CATALOG_DIR: 'the catalogs embedded in the binary are the deployed ones',
  AWS_LAMBDA_RUNTIME_API: 'set by the Lambda runtime itself',
  MCP_LIMITS: 'benchmarks and load tests only: a deployment keeps its limits (each can be 0)',
  MCP_AS_CIMD_ALLOW_LOOPBACK: 'local tests only: a client metadata document over plain http from loopback; start-up refuses it on Lambda',
  MCP_AS_IDP_CLIENT_SECRET: 'local only: on Lambda our client secret at the IdP comes from the deployment secret (`idp_client_secret`)',
  MCP_AS_CIMD_TEST_CA: 'local tests only: a certificate trusted for a client metadata document served over https on loopback; start-up refuses it on Lambda',
};
/**
 * Names infra sets before mcp-server reads them, and what the server has to do with each. Allowed
 * only while config.rs lacks them; once the server reads one, it is checked like every other name
 * (and its entry here is dead: remove it).
 */
export const AWAITING_SERVER: Record<string, string> = {
  [VAULT_ENV.vaultTable]: 'issue 22, item 2 (branch `vault`): keep each person\'s sealed upstream grants in this table (pk, sk)',
  [VAULT_ENV.vaultKeyId]: 'issue 22, item 2: seal them with data keys of this KMS key, encryption context `person`',
  [VAULT_ENV.connectClientId]: 'issue 22, item 2: sign a person in with this public client on /connect/<connector>',
};
/** Set only when the configuration has a value for them (the OAuth ones only with `oauth`). */
const OPTIONAL = [...Object.values(VAULT_ENV), 'MCP_OTLP_ENDPOINT', 'MCP_TRACE_SAMPLE_RATIO', 'MCP_ALLOWED_ORIGINS', 'MCP_PROFILES', 'MCP_KEY_PROFILES', 'MCP_DEFAULT_PROFILE', 'MCP_TRUSTED_PROXIES', 'MCP_TOKEN_CONFIRMS_CRITICAL', ORIGIN_VERIFY.env, ...Object.values(OAUTH_ENV), ...Object.values(AS_ENV)];
/** A configuration giving every optional variable a value (Cognito states every claim setting). */
const EVERYTHING = {
  allowedOrigins: ['https://claude.ai'],
  profiles: { accounting: ['papierkram/*'] },
  keyProfiles: { 'ops-key': 'accounting' },
  defaultProfile: 'accounting',
  mcpServer: { trustedProxies: ['130.176.0.0/16'], tracing: { sampleRatio: 0.25 } },
  userHeaderKeys: ['open-webui'],
  tokenConfirmsCritical: ['accounting'],
  customDomain: { certificateArn: OAUTH_CERTIFICATE_ARN },
  oauth: { cognito: { domainPrefix: 'example-mcp' }, algorithms: ['RS256'], leewaySeconds: 60, fetchTimeoutMs: 1500, tokenTypes: ['none'] },
  perUserConnectors: { connectClientId: 'hosted-mcp-connect' },
};
/**
 * The authorization-server mode, which excludes Cognito (both name the tokens' issuer) and, for
 * now, the per-user connectors: the names only it sets (MCP_AS_*).
 */
const AS_MODE = merge(EVERYTHING, {
  oauth: {
    cognito: undefined,
    authorizationServer: {
      idpIssuer: 'https://login.example.com', idpClientId: 'hosted-mcp', groupsClaim: 'groups', scopeGroups: { 'mcp:tools': ['staff'] },
      // Mid-rotation, so MCP_AS_PREVIOUS_KEY_IDS is set too.
      keyGeneration: 2, previousKeyGenerations: [1],
    },
    algorithms: ['ES256'],
    tokenTypes: ['at+jwt'],
  },
  perUserConnectors: undefined,
});

function lambdaEnv(t: ReturnType<typeof synth>['mcpT'] | ReturnType<typeof synth>['opsT'], functionName: string): Record<string, unknown> {
  const id = logicalId(t, 'AWS::Lambda::Function', { FunctionName: functionName });
  return t.toJSON().Resources[id].Properties.Environment.Variables;
}

describe('mcp-server environment matches functions/mcp-server/src/config/mod.rs', () => {
  const names = rustEnvNames(functionConfigRs(BINARIES.mcpServer));
  const s = synth({ config: testConfig(EVERYTHING), catalogs: WITH_INBOUND });
  const env = lambdaEnv(s.mcpT, `hosted-mcp-example-${BINARIES.mcpServer}`);
  const asEnv = lambdaEnv(synth({ config: testConfig(AS_MODE), catalogs: WITH_INBOUND }).mcpT, `hosted-mcp-example-${BINARIES.mcpServer}`);
  /** Every name set in either mode. */
  const keys = [...new Set([...Object.keys(env), ...Object.keys(asEnv)])];

  it('config.rs is parsed (sanity: the names the server requires on Lambda are there)', () => {
    assert.ok(names.fixed.has('MCP_SECRET_ID') && names.fixed.has('MCP_ALLOWED_HOSTS'), [...names.fixed].join(','));
    assert.deepEqual([...names.suffixes].sort(), ['_BASE_URL', '_EXPOSE_RAW']);
  });

  it("every infra name is one of config.rs's names", () => {
    for (const name of Object.values(MCP_ENV)) {
      assert.ok(names.all.has(name), `${name} (infra MCP_ENV) is not a const in config.rs`);
    }
  });

  it('every environment key is a config.rs name or <CONNECTOR><suffix> of a catalog connector', () => {
    const perConnector = new Set(CONNECTORS.flatMap((c) => [...names.suffixes].map((sfx) => `${c.toUpperCase()}${sfx}`)));
    for (const key of keys) {
      if (!names.fixed.has(key) && key in AWAITING_SERVER) continue;
      assert.ok(names.fixed.has(key) || perConnector.has(key), `${key} is not read by mcp-server`);
    }
  });

  it('sets the names awaiting the server on purpose (listed with what the server must do)', (t) => {
    for (const [name, todo] of Object.entries(AWAITING_SERVER)) {
      if (names.all.has(name)) t.diagnostic(`${name} is read by mcp-server now: remove it from AWAITING_SERVER`);
      else t.diagnostic(`${name}: set by infra, not read by mcp-server yet (${todo})`);
      assert.ok(name in env, `${name} is listed as awaiting the server but infra does not set it`);
    }
  });

  it('sets every config.rs name one to one, except the local-only ones', () => {
    const expected = [...names.fixed].filter((n) => !(n in NOT_ON_LAMBDA)).sort();
    const fixedKeys = keys.filter((k) => names.fixed.has(k)).sort();
    assert.deepEqual(fixedKeys, expected, 'a new config.rs variable needs a value here or an entry in NOT_ON_LAMBDA');
    for (const local of Object.keys(NOT_ON_LAMBDA)) assert.ok(!(local in env) && !(local in asEnv), `${local} must not be set: ${NOT_ON_LAMBDA[local]}`);
  });

  it('gives a tool call and a job wait their time below the function timeout', () => {
    assert.equal(s.config.mcpServer.timeoutSeconds, 10);
    assert.equal(env.MCP_CALL_DEADLINE_MS, '8000');
    assert.equal(env.MCP_JOB_WAIT_MS, '6000', 'the 10 s timeout less 4 s');
    assert.equal(callDeadlineMs(29), 8000, 'a call keeps its 8 s under a longer timeout');
    assert.equal(jobWaitMs(29), 25000, 'a job is waited for 25 s under the longest timeout');
    assert.equal(callDeadlineMs(5), 3000, 'a short timeout: 2 s below it');
    assert.equal(env.MCP_DEFAULT_PROFILE, 'accounting');
  });

  it('sets the limits (defaults sized for a ten-person company) and the trusted proxies', () => {
    assert.deepEqual(
      [env.MCP_LIMIT_PER_IP_PER_MINUTE, env.MCP_LIMIT_PER_CALLER_PER_MINUTE, env.MCP_LIMIT_DAILY_CALLS],
      ['120', '60', '20000'],
    );
    assert.equal(env.MCP_TRUSTED_PROXIES, '130.176.0.0/16');
    assert.ok(!('MCP_LIMITS' in env), 'a deployment never turns every limit off');
  });

  it('points the limiter at the counter table with its timeout, or leaves both unset without a table', () => {
    const table = logicalId(s.mcpT, 'AWS::DynamoDB::Table', { TableName: 'hosted-mcp-example-limits' });
    assert.deepEqual(env.MCP_LIMITS_TABLE, { Ref: table });
    assert.equal(env.MCP_LIMITS_TIMEOUT_MS, '250');
    const slow = lambdaEnv(synth({ config: testConfig({ mcpServer: { limits: { tableTimeoutMs: 400 } } }) }).mcpT, 'hosted-mcp-example-mcp-server');
    assert.equal(slow.MCP_LIMITS_TIMEOUT_MS, '400');
    const off = lambdaEnv(synth({ config: testConfig({ mcpServer: { limits: { table: false } } }) }).mcpT, 'hosted-mcp-example-mcp-server');
    assert.ok(!('MCP_LIMITS_TABLE' in off) && !('MCP_LIMITS_TIMEOUT_MS' in off), 'in-memory counters: nothing to point at');
  });

  it('points the idempotency ledger at its table, with or without the limits table', () => {
    const ledger = logicalId(s.mcpT, 'AWS::DynamoDB::Table', { TableName: 'hosted-mcp-example-ledger' });
    assert.deepEqual(env.MCP_LEDGER_TABLE, { Ref: ledger });
    const off = synth({ config: testConfig({ mcpServer: { limits: { table: false } } }) }).mcpT;
    const offEnv = lambdaEnv(off, 'hosted-mcp-example-mcp-server');
    assert.deepEqual(offEnv.MCP_LEDGER_TABLE, { Ref: logicalId(off, 'AWS::DynamoDB::Table', { TableName: 'hosted-mcp-example-ledger' }) });
  });

  it('passes tokenConfirmsCritical as the comma-separated list config.rs reads, and leaves it unset by default', () => {
    assert.equal(env.MCP_TOKEN_CONFIRMS_CRITICAL, 'accounting');
    const two = synth({ config: testConfig({ profiles: { accounting: ['papierkram/*'], read: ['papierkram/*_get'] }, tokenConfirmsCritical: ['accounting', 'read'] }) });
    assert.equal(lambdaEnv(two.mcpT, 'hosted-mcp-example-mcp-server').MCP_TOKEN_CONFIRMS_CRITICAL, 'accounting,read');
    const all = synth({ config: testConfig({ tokenConfirmsCritical: ['*'] }) });
    assert.equal(lambdaEnv(all.mcpT, 'hosted-mcp-example-mcp-server').MCP_TOKEN_CONFIRMS_CRITICAL, '*');
    assert.ok(!('MCP_TOKEN_CONFIRMS_CRITICAL' in lambdaEnv(synth().mcpT, 'hosted-mcp-example-mcp-server')), 'default: critical tools need a person everywhere');
  });

  it('sets the variables Lambda mode requires, non-empty', () => {
    assert.equal(env.MCP_SECRET_ID, 'hosted-mcp/example');
    assert.ok(env.MCP_ALLOWED_HOSTS, 'MCP_ALLOWED_HOSTS is required on Lambda');
    assert.equal(env.MCP_LOG_FORMAT, 'json');
  });

  it('states <CONNECTOR>_EXPOSE_RAW=false for every catalog connector', () => {
    assert.ok(CONNECTORS.length > 0);
    for (const c of CONNECTORS) assert.equal(env[`${c.toUpperCase()}_EXPOSE_RAW`], 'false', c);
  });

  it('sets no <CONNECTOR>_BASE_URL unless configured, then the configured URL', () => {
    assert.deepEqual(keys.filter((k) => k.endsWith('_BASE_URL')), []);
    const sandbox = synth({ config: testConfig({ connectorBaseUrls: { papierkram: 'https://sandbox.example.com/api/v1' } }) });
    const e = lambdaEnv(sandbox.mcpT, 'hosted-mcp-example-mcp-server');
    assert.equal(e.PAPIERKRAM_BASE_URL, 'https://sandbox.example.com/api/v1');
  });

  it('omits the optional ones when not configured (no origins: every Origin refused; no profiles)', () => {
    const none = synth({ config: testConfig({ allowedOrigins: [], profiles: undefined, keyProfiles: undefined }) });
    const e = lambdaEnv(none.mcpT, 'hosted-mcp-example-mcp-server');
    for (const name of OPTIONAL) assert.ok(!(name in e), name);
  });

  it('serializes profiles the way profiles.rs parses them', () => {
    const t = synth({ config: testConfig({ profiles: { accounting: ['papierkram/*'], read: ['papierkram/*_list', 'papierkram/*_get'] }, keyProfiles: { k1: 'read', k2: 'accounting' } }) });
    const e = lambdaEnv(t.mcpT, 'hosted-mcp-example-mcp-server');
    assert.equal(e.MCP_PROFILES, 'accounting=papierkram/*;read=papierkram/*_list,papierkram/*_get');
    assert.equal(e.MCP_KEY_PROFILES, 'k1=read,k2=accounting');
  });
});

/** Per ops function: config.rs names infra deliberately leaves unset on Lambda, and why. */
const OPS_NOT_ON_LAMBDA: Record<string, Record<string, string>> = {
  [BINARIES.quotaAlarm]: {
    QUOTA_LOG_GROUP_PREFIX: 'explicit log groups instead: a prefix needs logs:DescribeLogGroups and wildcard log-group grants',
    QUOTA_CATALOG_DIR: 'the catalogs embedded in the binary are the deployed ones',
    AWS_LAMBDA_RUNTIME_API: 'set by the Lambda runtime itself',
  MCP_LIMITS: 'benchmarks and load tests only: a deployment keeps its limits (each can be 0)',
  },
  [BINARIES.digest]: {
    DIGEST_LOG_GROUP_PREFIX: 'explicit log groups instead: a prefix needs logs:DescribeLogGroups and wildcard log-group grants',
    AWS_LAMBDA_RUNTIME_API: 'set by the Lambda runtime itself',
    AWS_REGION: 'set by the Lambda runtime itself: the deployment\'s region, that of the trace links',
  MCP_LIMITS: 'benchmarks and load tests only: a deployment keeps its limits (each can be 0)',
  },
};

describe('ops function environments match their config.rs (once it exists)', () => {
  const s = synth();
  for (const binary of [BINARIES.digest, BINARIES.quotaAlarm]) {
    const path = functionConfigRs(binary);
    const skip = (t: { skip: (m: string) => void }): boolean => {
      if (existsSync(path)) return false;
      t.skip(`${path} does not exist yet`);
      return true;
    };
    const env = (): Record<string, unknown> => lambdaEnv(s.opsT, `hosted-mcp-example-${binary}`);

    it(`${binary}: every environment key is a config.rs name`, (t) => {
      if (skip(t)) return;
      const names = rustEnvNames(path);
      for (const key of Object.keys(env())) assert.ok(names.all.has(key), `${key} is not a const in ${path}`);
    });

    it(`${binary}: every config.rs name is set, or deliberately left out`, (t) => {
      if (skip(t)) return;
      const notOnLambda = OPS_NOT_ON_LAMBDA[binary] ?? {};
      const expected = [...rustEnvNames(path).fixed].filter((n) => !(n in notOnLambda)).sort();
      assert.deepEqual(Object.keys(env()).sort(), expected, 'set the new variable in ops-stack.ts, or list it in OPS_NOT_ON_LAMBDA with the reason');
    });
  }
});

describe('quota-alarm reads the deployment secret mcp-server reads', () => {
  for (const secretId of ['hosted-mcp/example', 'arn:aws:secretsmanager:eu-central-1:123456789012:secret:hosted-mcp/prod-AbC123']) {
    it(`QUOTA_SECRET_ID = MCP_SECRET_ID = ${secretId}`, () => {
      const s = synth({ config: testConfig({ secretId }) });
      assert.equal(lambdaEnv(s.opsT, `hosted-mcp-example-${BINARIES.quotaAlarm}`).QUOTA_SECRET_ID, secretId);
      assert.equal(lambdaEnv(s.mcpT, `hosted-mcp-example-${BINARIES.mcpServer}`).MCP_SECRET_ID, secretId);
    });
  }
});
