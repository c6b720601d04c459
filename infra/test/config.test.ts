// Deployment configuration: defaults, validation messages that name the key, and the two sources
// (a JSON file via `-c config=…`, or a `hostedMcp` context object).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ConfigError, DEFAULTS, type DeploymentConfig, loadConfig, parseConfig } from '../src/config.ts';
import { INFRA_DIR } from '../src/paths.ts';
import { EXAMPLE_CONFIG, merge, tempDir, writeFiles } from './helpers.ts';

const CONNECTORS = ['papierkram'];
const MINIMAL = {
  stage: 'prod',
  region: 'eu-central-1',
  secretId: 'hosted-mcp/prod',
  opsRecipients: ['ops@example.com'],
  sender: 'mcp@example.com',
};

function problems(raw: unknown): string[] {
  try {
    parseConfig(raw, 'test', CONNECTORS);
  } catch (e) {
    assert.ok(e instanceof ConfigError, String(e));
    assert.match(e.message, /^test: invalid deployment configuration:\n {2}- /);
    return [...e.problems];
  }
  assert.fail('expected a ConfigError');
}

function problem(over: Record<string, unknown>, key: string, pattern: RegExp): void {
  const got = problems(merge(MINIMAL, over));
  assert.ok(got.some((p) => p.startsWith(`${key}: `) && pattern.test(p)), `want ${key}: ${pattern}; got\n${got.join('\n')}`);
}

describe('parseConfig', () => {
  it('fills in every default from a minimal configuration', () => {
    const c: DeploymentConfig = parseConfig(MINIMAL, 'test', CONNECTORS);
    assert.equal(c.stage, 'prod');
    assert.equal(c.account, undefined);
    assert.equal(c.customDomain, undefined);
    assert.deepEqual(c.allowedHosts, []);
    assert.deepEqual(c.allowedOrigins, []);
    assert.equal(c.senderIdentity, 'email');
    assert.equal(c.logRetentionDays, 90);
    assert.equal(c.metricsNamespace, 'HostedMcp');
    assert.deepEqual(c.schedules, {
      digest: { expression: 'cron(0 7 ? * MON *)', timeZone: 'Europe/Berlin' },
      quota: { expression: 'rate(15 minutes)', timeZone: 'Europe/Berlin' },
    });
    assert.deepEqual(c.mcpServer, {
      memoryMb: 256, timeoutSeconds: 10, secretTtlSeconds: 300, maxBodyBytes: 1048576, maxResultBytes: 25600, healthTimeoutMs: 2000, healthIntervalSeconds: 900,
      limits: { perIpPerMinute: 120, ipv6Prefix: 64, perCallerPerMinute: 60, dailyCalls: 20000, table: true, tableTimeoutMs: 250 }, trustedProxies: [],
    });
    assert.deepEqual(c.digest, { memoryMb: 256, timeoutSeconds: 300, sendAllClear: true });
    assert.deepEqual(c.quotaAlarm, { memoryMb: 256, timeoutSeconds: 180 });
    assert.deepEqual(c.throttle, DEFAULTS.throttle);
    assert.deepEqual(c.alarms, { lambdaErrors: 1, lambdaThrottles: 1, durationP99Ms: 8000, api5xx: 5, authDenied: 20, dailyCallsUsedPct: 80, toolLatencyP95Ms: 3000, outcomeUnknown: 1, upstreamRateLimited: 5, inboundRefused: 10 });
    assert.deepEqual(c.connectorBaseUrls, {});
    assert.deepEqual(c.profiles, {});
    assert.deepEqual(c.keyProfiles, {});
    assert.deepEqual(c.tokenConfirmsCritical, [], 'critical tools need a person everywhere unless configured');
  });

  it('accepts config/example.json', () => {
    const c = parseConfig(EXAMPLE_CONFIG, 'example.json', CONNECTORS);
    assert.equal(c.customDomain?.domainName, 'mcp.example.com');
  });

  it('reports every problem at once', () => {
    const got = problems({ stage: 'Prod!', region: 'Frankfurt', opsRecipients: [] });
    assert.deepEqual(got.map((p) => p.split(':')[0]), ['stage', 'region', 'secretId', 'opsRecipients', 'sender']);
  });

  it('names the required keys when missing', () => {
    const got = problems({});
    for (const key of ['stage', 'region', 'secretId', 'opsRecipients', 'sender']) {
      assert.ok(got.some((p) => p.startsWith(`${key}: required`)), `${key} in ${got.join('\n')}`);
    }
    assert.ok(problems(undefined).some((p) => p.includes('no configuration')));
    assert.ok(problems('stage=prod').some((p) => p.includes('expected an object')));
  });

  it('rejects unknown keys with a did-you-mean hint, at any depth', () => {
    problem({ opsRecipient: ['x@example.com'] }, 'opsRecipient', /unknown key \(did you mean `opsRecipients`\?\)/);
    problem({ mcpServer: { memoryMB: 512 } }, 'mcpServer.memoryMB', /did you mean `memoryMb`/);
    problem({ throttle: { rate: 1 } }, 'throttle.rate', /unknown key/);
  });

  it('validates values with a message saying what is expected and what it got', () => {
    problem({ stage: 'prod_eu' }, 'stage', /lower-case name.*got `"prod_eu"`/);
    problem({ account: '1234' }, 'account', /12-digit/);
    problem({ opsRecipients: ['ops'] }, 'opsRecipients[0]', /e-mail/);
    problem({ opsRecipients: ['a@example.com', 'a@example.com'] }, 'opsRecipients', /listed twice: a@example.com/);
    problem({ sender: 'mcp' }, 'sender', /e-mail/);
    problem({ senderIdentity: 'dns' }, 'senderIdentity', /`email` or `domain`/);
    problem({ allowedHosts: ['https://mcp.example.com'] }, 'allowedHosts[0]', /host names/);
    problem({ allowedOrigins: ['claude.ai'] }, 'allowedOrigins[0]', /https:\/\//);
    problem({ logRetentionDays: 10 }, 'logRetentionDays', /one of 1, 3, 5, 7, 14, 30/);
    problem({ metricsNamespace: 'AWS/Lambda' }, 'metricsNamespace', /reserved/);
    problem({ schedules: { digest: { expression: 'cron(0 7 * * MON)' } } }, 'schedules.digest.expression', /scheduler expression/);
    problem({ schedules: { quota: { timeZone: 'Berlin' } } }, 'schedules.quota.timeZone', /IANA time zone/);
    problem({ mcpServer: { memoryMb: 64 } }, 'mcpServer.memoryMb', /integer from 128 to 10240/);
    problem({ mcpServer: { maxResultBytes: 100 } }, 'mcpServer.maxResultBytes', /from 1024/);
    problem({ throttle: { rateLimit: 0 } }, 'throttle.rateLimit', /from 1/);
    // quota-alarm's query timeout is this minus a minute.
    problem({ quotaAlarm: { timeoutSeconds: 60 } }, 'quotaAlarm.timeoutSeconds', /from 90 to 900/);
    problem({ digest: { timeoutSeconds: 60 } }, 'digest.timeoutSeconds', /from 90 to 900/);
    problem({ digest: { sendAllClear: 'no' } }, 'digest.sendAllClear', /true or false/);
    problem({ alarms: { authDenied: 'many' } }, 'alarms.authDenied', /integer/);
    problem({ alarms: { dailyCallsUsedPct: 120 } }, 'alarms.dailyCallsUsedPct', /from 1 to 100/);
    problem({ alarms: { outcomeUnknown: 0 } }, 'alarms.outcomeUnknown', /integer from 1 to 100000/);
    problem({ alarms: { outcomeUnkown: 2 } }, 'alarms.outcomeUnkown', /did you mean `outcomeUnknown`/);
    problem({ mcpServer: { limits: { table: 'off' } } }, 'mcpServer.limits.table', /true or false/);
    problem({ mcpServer: { limits: { tableTimeoutMs: 5000 } } }, 'mcpServer.limits.tableTimeoutMs', /from 10 to 2000/);
    problem({ mcpServer: { limits: { tabel: false } } }, 'mcpServer.limits.tabel', /did you mean `table`/);
    problem({ mcpServer: { limits: { ipv6Prefix: 16 } } }, 'mcpServer.limits.ipv6Prefix', /from 32 to 128/);
  });

  it('keeps the mcp-server timeout under the HTTP API integration limit, and the p99 alarm under the timeout', () => {
    problem({ mcpServer: { timeoutSeconds: 60 } }, 'mcpServer.timeoutSeconds', /from 1 to 29/);
    problem({ alarms: { durationP99Ms: 20000 } }, 'alarms.durationP99Ms', /from 1 to 10000/);
    problem({ alarms: { toolLatencyP95Ms: 20000 } }, 'alarms.toolLatencyP95Ms', /from 1 to 10000/);
  });

  it('takes a secret name or a full ARN, not a partial ARN (it could not be granted exactly)', () => {
    assert.equal(parseConfig(merge(MINIMAL, { secretId: 'arn:aws:secretsmanager:eu-central-1:123456789012:secret:mcp-AbC123' }), 't', CONNECTORS).secretId,
      'arn:aws:secretsmanager:eu-central-1:123456789012:secret:mcp-AbC123');
    problem({ secretId: 'arn:aws:secretsmanager:eu-central-1:123456789012:secret:mcp' }, 'secretId', /partial ARN/);
    problem({ secretId: 'has space' }, 'secretId', /secret name/);
    problem({ secretKmsKeyArn: 'alias/aws/secretsmanager' }, 'secretKmsKeyArn', /KMS key ARN/);
  });

  it('checks the custom domain: certificate in the stack region, domain inside the zone', () => {
    const domain = {
      domainName: 'mcp.example.com',
      certificateArn: 'arn:aws:acm:us-east-1:123456789012:certificate/abc-123',
      hostedZone: { id: 'Z123', name: 'other.com' },
    };
    problem({ customDomain: domain }, 'customDomain.certificateArn', /must be a certificate in eu-central-1 .* not in us-east-1/);
    problem({ customDomain: domain }, 'customDomain.hostedZone.name', /`mcp.example.com` is not in zone `other.com`/);
    problem({ customDomain: { domainName: 'mcp.example.com' } }, 'customDomain.certificateArn', /required/);
  });

  it('checks profiles and the keys limited to them', () => {
    problem({ profiles: { 'a b': ['papierkram/*'] } }, 'profiles.a b', /letters, digits/);
    problem({ profiles: { a: ['papierkram'] } }, 'profiles.a[0]', /connector\/tool/);
    problem({ profiles: { a: [] } }, 'profiles.a', /at least one/);
    problem({ profiles: { a: ['x/*'] }, keyProfiles: { k: 'b' } }, 'keyProfiles.k', /not a profile defined/);
    const c = parseConfig(merge(MINIMAL, { profiles: { a: ['x/*'] }, keyProfiles: { k: 'a' } }), 't', CONNECTORS);
    assert.deepEqual([c.profiles, c.keyProfiles], [{ a: ['x/*'] }, { k: 'a' }]);
  });

  it('checks tokenConfirmsCritical: defined profiles, or `*` alone', () => {
    const profiles = { accounting: ['papierkram/*'], read: ['papierkram/*_get'] };
    const ok = (list: unknown[]): readonly string[] => parseConfig(merge(MINIMAL, { profiles, tokenConfirmsCritical: list }), 't', CONNECTORS).tokenConfirmsCritical;
    assert.deepEqual(ok(['accounting', 'read']), ['accounting', 'read']);
    assert.deepEqual(ok(['*']), ['*']);
    assert.deepEqual(parseConfig(merge(MINIMAL, { tokenConfirmsCritical: ['*'] }), 't', CONNECTORS).tokenConfirmsCritical, ['*']);
    problem({ profiles, tokenConfirmsCritical: ['books'] }, 'tokenConfirmsCritical[0]', /`books` is not a profile defined in `profiles`/);
    problem({ tokenConfirmsCritical: ['toString'] }, 'tokenConfirmsCritical[0]', /not a profile defined/);
    // Indexed as written, also after a malformed entry.
    problem({ profiles, tokenConfirmsCritical: ['a,b', 'books'] }, 'tokenConfirmsCritical[1]', /`books` is not a profile/);
    problem({ profiles, tokenConfirmsCritical: ['a,b'] }, 'tokenConfirmsCritical[0]', /profile names, or `\*`/);
    problem({ profiles, tokenConfirmsCritical: ['*', 'accounting'] }, 'tokenConfirmsCritical', /`\*` already covers every profile/);
    problem({ profiles, tokenConfirmsCritical: ['read', 'read'] }, 'tokenConfirmsCritical', /listed twice: read/);
    problem({ tokenConfirmsCritical: 'accounting' }, 'tokenConfirmsCritical', /expected a list/);
    problem({ tokenConfirmCritical: ['*'] }, 'tokenConfirmCritical', /did you mean `tokenConfirmsCritical`/);
  });

  it('accepts connector base URLs only for catalog connectors, https only', () => {
    problem({ connectorBaseUrls: { tickets: 'https://x.example.com' } }, 'connectorBaseUrls.tickets', /unknown key/);
    problem({ connectorBaseUrls: { papierkram: 'http://127.0.0.1:8768' } }, 'connectorBaseUrls.papierkram', /https/);
  });
});

describe('oauth (issue 13)', () => {
  const COGNITO = { cognito: { domainPrefix: 'acme-mcp' } };
  const oauth = (o: Record<string, unknown>, more: Record<string, unknown> = {}) => ({ oauth: o, ...more });
  const EAST = 'arn:aws:acm:us-east-1:123456789012:certificate/abc-123';
  const CENTRAL = 'arn:aws:acm:eu-central-1:123456789012:certificate/abc-123';

  it('is off unless configured, and userHeaderKeys empty', () => {
    const c = parseConfig(MINIMAL, 'test', CONNECTORS);
    assert.equal(c.oauth, undefined);
    assert.deepEqual(c.userHeaderKeys, []);
  });

  it('fills in the defaults: API keys stay on, CloudFront in front, Cognito scope `tools` for everything, a public client', () => {
    const c = parseConfig(merge(MINIMAL, oauth(COGNITO)), 'test', CONNECTORS);
    assert.deepEqual(c.oauth, {
      apiKeys: true,
      frontDoor: 'cloudfront',
      cognito: { domainPrefix: 'acme-mcp', scopes: { tools: '*' }, callbackUrls: [], confidentialClient: false, selfSignUp: false, selfSignUpScopes: [], mfa: 'optional' },
    });
  });

  it('accepts config/example-oauth.json', () => {
    const raw = JSON.parse(readFileSync(join(INFRA_DIR, 'config', 'example-oauth.json'), 'utf8'));
    const c = parseConfig(raw, 'example-oauth.json', CONNECTORS);
    assert.deepEqual(c.oauth?.cognito?.scopes, { tools: '*', accounting: 'accounting' });
    assert.deepEqual(c.userHeaderKeys, ['open-webui']);
  });

  it('accepts config/example-per-user.json (per-user connectors at an external issuer)', () => {
    const raw = JSON.parse(readFileSync(join(INFRA_DIR, 'config', 'example-per-user.json'), 'utf8'));
    const c = parseConfig(raw, 'example-per-user.json', CONNECTORS);
    assert.deepEqual(c.perUserConnectors, { connectClientId: 'hosted-mcp-connect' });
    assert.equal(c.oauth?.frontDoor, 'api-gateway');
  });

  it('needs exactly one authorization server', () => {
    problem(oauth({}), 'oauth', /give the authorization server: `cognito` .*, `external` .* or `authorizationServer`/);
    problem(oauth({ ...COGNITO, external: { issuer: 'https://login.example.com' } }), 'oauth', /not `cognito` and `external`/);
    problem(oauth({ cognitoo: {} }), 'oauth.cognitoo', /did you mean `cognito`/);
    problem(oauth(true as unknown as Record<string, unknown>), 'oauth', /expected an object/);
  });

  it('checks the Cognito settings', () => {
    problem(oauth({ cognito: {} }), 'oauth.cognito.domainPrefix', /required/);
    problem(oauth({ cognito: { domainPrefix: 'Acme_MCP' } }), 'oauth.cognito.domainPrefix', /lower-case letters/);
    problem(oauth({ cognito: { domainPrefix: 'acme-cognito' } }), 'oauth.cognito.domainPrefix', /refuses prefixes containing/);
    problem(oauth({ cognito: { domainPrefix: 'acme', scopes: { 'a/b': '*' } } }), 'oauth.cognito.scopes.a/b', /without `\/`/);
    problem(oauth({ cognito: { domainPrefix: 'acme', scopes: { books: 'books' } } }), 'oauth.cognito.scopes.books', /neither `\*` nor a profile defined/);
    problem(oauth({ cognito: { domainPrefix: 'acme', scopes: {} } }), 'oauth.cognito.scopes', /at least one/);
    problem(oauth({ cognito: { domainPrefix: 'acme', callbackUrls: ['http://127.0.0.1:8080/cb'] } }), 'oauth.cognito.callbackUrls[0]', /plain http for localhost only/);
    problem(oauth({ cognito: { domainPrefix: 'acme', callbackUrls: ['https://claude.ai/api/mcp/auth_callback'] } }), 'oauth.cognito.callbackUrls', /always registered/);
    problem(oauth({ cognito: { domainPrefix: 'acme', mfa: 'sms' } }), 'oauth.cognito.mfa', /`off`, `optional` or `required`/);
    problem(oauth({ cognito: { domainPrefix: 'acme', confidentialClient: 'yes' } }), 'oauth.cognito.confidentialClient', /true or false/);
    const c = parseConfig(merge(MINIMAL, { profiles: { books: ['papierkram/*'] }, ...oauth({ cognito: { domainPrefix: 'acme', scopes: { tools: '*', books: 'books' }, callbackUrls: ['http://localhost:33418/callback'] } }) }), 't', CONNECTORS);
    assert.deepEqual(c.oauth?.cognito?.callbackUrls, ['http://localhost:33418/callback']);
  });

  // Issue 23, finding 8: `selfSignUp: true` let anyone who verifies an e-mail address reach every tool.
  it('refuses selfSignUp unless selfSignUpScopes says what a self-registered person reaches', () => {
    const books = { profiles: { books: ['papierkram/*_list'] } };
    const cognito = (more: Record<string, unknown>) => oauth({ cognito: { domainPrefix: 'acme', scopes: { tools: '*', books: 'books' }, ...more } }, books);
    problem(cognito({ selfSignUp: true }), 'oauth.cognito.selfSignUp', /say what such a person may reach with `selfSignUpScopes`/);
    problem(cognito({ selfSignUp: true, selfSignUpScopes: ['admin'] }), 'oauth.cognito.selfSignUpScopes', /`admin` is not a scope of `scopes` \(`tools`, `books`\)/);
    problem(cognito({ selfSignUpScopes: ['books'] }), 'oauth.cognito.selfSignUpScopes', /only with `selfSignUp: true`/);
    problem(cognito({ selfSignUp: true, selfSignUpScopes: 'books' }), 'oauth.cognito.selfSignUpScopes', /expected a list/);
    problem(oauth({ cognito: { domainPrefix: 'acme', scopes: { ['s'.repeat(129)]: '*' } } }), `oauth.cognito.scopes.${'s'.repeat(129)}`, /at most 128 characters/);
    const open = parseConfig(merge(MINIMAL, cognito({ selfSignUp: true, selfSignUpScopes: ['books'] })), 't', CONNECTORS);
    assert.deepEqual([open.oauth?.cognito?.selfSignUp, open.oauth?.cognito?.selfSignUpScopes], [true, ['books']]);
    // Stated: sign-up open, nothing reachable until an admin adds the person to a group.
    const approval = parseConfig(merge(MINIMAL, cognito({ selfSignUp: true, selfSignUpScopes: [] })), 't', CONNECTORS);
    assert.deepEqual(approval.oauth?.cognito?.selfSignUpScopes, []);
  });

  it('checks an external server: https issuer, claim names, values and profiles', () => {
    problem(oauth({ external: {} }), 'oauth.external.issuer', /required/);
    problem(oauth({ external: { issuer: 'http://login.example.com' } }), 'oauth.external.issuer', /https issuer URL/);
    problem(oauth({ external: { issuer: 'https://x.example.com', audienceClaim: 'a b' } }), 'oauth.external.audienceClaim', /claim name/);
    problem(oauth({ external: { issuer: 'https://x.example.com', audience: [] } }), 'oauth.external.audience', /at least one/);
    problem(oauth({ external: { issuer: 'https://x.example.com', audience: ['a,b'] } }), 'oauth.external.audience[0]', /no spaces, commas or =/);
    problem(oauth({ external: { issuer: 'https://x.example.com', profiles: { 'mcp:books': 'books' } } }), 'oauth.external.profiles.mcp:books', /neither `\*` nor a profile defined/);
  });

  it('checks the resource URL: https, ending in /mcp, on the custom domain when there is one', () => {
    problem(oauth({ ...COGNITO, resourceUrl: 'https://mcp.example.com/' }), 'oauth.resourceUrl', /ending in \/mcp/);
    problem(oauth({ ...COGNITO, resourceUrl: 'http://mcp.example.com/mcp' }), 'oauth.resourceUrl', /https URL/);
    problem(oauth({ ...COGNITO, resourceUrl: 'https://other.example.com/mcp' }, { customDomain: { domainName: 'mcp.example.com', certificateArn: EAST } }),
      'oauth.resourceUrl', /must be on the custom domain `mcp.example.com`/);
    const c = parseConfig(merge(MINIMAL, oauth({ ...COGNITO, resourceUrl: 'https://mcp.example.com/mcp' })), 't', CONNECTORS);
    assert.equal(c.oauth?.resourceUrl, 'https://mcp.example.com/mcp');
  });

  it('checks the front door, the algorithms, the leeway and the fetch timeout', () => {
    problem(oauth({ ...COGNITO, frontDoor: 'alb' }), 'oauth.frontDoor', /`cloudfront` or `api-gateway`/);
    problem(oauth({ ...COGNITO, algorithms: ['HS256'] }), 'oauth.algorithms[0]', /RS256, .*EdDSA/);
    problem(oauth({ ...COGNITO, algorithms: [] }), 'oauth.algorithms', /at least one/);
    problem(oauth({ ...COGNITO, leewaySeconds: 600 }), 'oauth.leewaySeconds', /from 0 to 300/);
    // A third of the 10 s function timeout: a cold start may fetch metadata and keys in one call.
    problem(oauth({ ...COGNITO, fetchTimeoutMs: 5000 }), 'oauth.fetchTimeoutMs', /from 100 to 3333/);
    problem(oauth({ ...COGNITO, apiKeys: 'no' }), 'oauth.apiKeys', /true or false/);
  });

  it('wants the custom domain certificate in us-east-1 behind CloudFront, in the stack region on API Gateway', () => {
    const domain = (certificateArn: string) => ({ customDomain: { domainName: 'mcp.example.com', certificateArn } });
    problem(oauth(COGNITO, domain(CENTRAL)), 'customDomain.certificateArn', /CloudFront serves the domain: the certificate must be in us-east-1, not in eu-central-1/);
    problem(oauth({ ...COGNITO, frontDoor: 'api-gateway' }, domain(EAST)), 'customDomain.certificateArn', /must be a certificate in eu-central-1/);
    assert.ok(parseConfig(merge(MINIMAL, oauth(COGNITO, domain(EAST))), 't', CONNECTORS).customDomain);
    assert.ok(parseConfig(merge(MINIMAL, oauth({ ...COGNITO, frontDoor: 'api-gateway' }, domain(CENTRAL))), 't', CONNECTORS).customDomain);
  });

  it('checks userHeaderKeys', () => {
    problem({ userHeaderKeys: ['open webui'] }, 'userHeaderKeys[0]', /API key ids/);
    problem({ userHeaderKeys: 'open-webui' }, 'userHeaderKeys', /expected a list/);
  });
});

describe('ledger', () => {
  it('has no point-in-time recovery unless a recovery period is given (1–35 days)', () => {
    assert.deepEqual(parseConfig(MINIMAL, 't', CONNECTORS).ledger, {});
    assert.deepEqual(parseConfig(merge(MINIMAL, { ledger: { pointInTimeRecoveryDays: 35 } }), 't', CONNECTORS).ledger, { pointInTimeRecoveryDays: 35 });
    problem({ ledger: { pointInTimeRecoveryDays: 0 } }, 'ledger.pointInTimeRecoveryDays', /from 1 to 35/);
    problem({ ledger: { pitr: true } }, 'ledger.pitr', /unknown key/);
  });
});

describe('loadConfig', () => {
  const context = (values: Record<string, unknown>) => (key: string): unknown => values[key];

  it('reads the JSON file named by `-c config=…` (relative to infra/)', () => {
    const c = loadConfig(context({ config: 'config/example.json' }), CONNECTORS);
    assert.equal(c.stage, 'example');
  });

  it('reads an absolute path, and names the file in its errors', () => {
    const dir = writeFiles(tempDir('config'), { 'bad.json': JSON.stringify({ ...MINIMAL, stage: 'X' }), 'broken.json': '{ stage: ' });
    assert.throws(() => loadConfig(context({ config: join(dir, 'bad.json') }), CONNECTORS), (e: Error) => e.message.startsWith(`${join(dir, 'bad.json')}: invalid`) && e.message.includes('stage:'));
    assert.throws(() => loadConfig(context({ config: join(dir, 'broken.json') }), CONNECTORS), /not valid JSON/);
    assert.throws(() => loadConfig(context({ config: join(dir, 'missing.json') }), CONNECTORS), /no such file/);
  });

  it('reads an inline `hostedMcp` object (cdk.json context), or its JSON text (-c hostedMcp=…)', () => {
    assert.equal(loadConfig(context({ hostedMcp: MINIMAL }), CONNECTORS).stage, 'prod');
    assert.equal(loadConfig(context({ hostedMcp: JSON.stringify(MINIMAL) }), CONNECTORS).stage, 'prod');
  });

  it('prefers the file over the inline object', () => {
    assert.equal(loadConfig(context({ config: 'config/example.json', hostedMcp: MINIMAL }), CONNECTORS).stage, 'example');
  });

  it('says how to configure when nothing is given', () => {
    assert.throws(() => loadConfig(context({}), CONNECTORS), /pass `-c config=config\/<stage>\.json`/);
  });
});
