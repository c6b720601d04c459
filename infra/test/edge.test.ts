// The Lambda@Edge origin-response function (src/edge/www-authenticate.cjs), run on sample
// CloudFront events exactly as synth inlines it (front-door.ts fills in the resource origin).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { runInNewContext } from 'node:vm';
import { edgeFunctionCode } from '../src/front-door.ts';

type Headers = Record<string, { key: string; value: string }[]>;
interface Response { status: string; statusDescription: string; headers: Headers }
type Handler = (event: unknown) => Promise<Response>;

/** The handler as Lambda's Node.js runtime loads index.js (CommonJS). */
function handler(resourceOrigin?: string): Handler {
  const module = { exports: {} as { handler?: Handler } };
  runInNewContext(edgeFunctionCode(resourceOrigin), { module, exports: module.exports });
  assert.equal(typeof module.exports.handler, 'function');
  // Back into this realm's objects (deepStrictEqual compares prototypes), as CloudFront reads JSON.
  return async (e) => JSON.parse(JSON.stringify(await module.exports.handler!(e))) as Response;
}

/** An origin-response event as CloudFront sends it (trimmed to what the function reads and keeps). */
function event(status: string, uri: string, headers: Headers = {}) {
  return {
    Records: [{
      cf: {
        config: { distributionDomainName: 'd111111abcdef8.cloudfront.net', distributionId: 'EDFDVBD6EXAMPLE', eventType: 'origin-response', requestId: 'r-1' },
        request: {
          clientIp: '203.0.113.178',
          method: 'POST',
          uri,
          querystring: '',
          // Host is the origin's: the origin request policy forwards every viewer header but Host.
          headers: { host: [{ key: 'Host', value: 'abc123.execute-api.eu-central-1.amazonaws.com' }] },
        },
        response: {
          status,
          statusDescription: status === '200' ? 'OK' : status === '401' ? 'Unauthorized' : 'Forbidden',
          headers: { 'content-type': [{ key: 'Content-Type', value: 'application/json' }], ...headers },
        },
      },
    }],
  };
}

const REMAPPED = 'x-amzn-remapped-www-authenticate';
const challenge = (value: string): Headers => ({ [REMAPPED]: [{ key: 'x-amzn-Remapped-WWW-Authenticate', value }] });
const SERVER_401 = 'Bearer resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp", scope="https://mcp.example.com/mcp/tools", error="invalid_token", error_description="expired"';

describe('edge function: WWW-Authenticate on origin responses', () => {
  it('copies the renamed header back on a 401, keeping error= and scope=, and drops the renamed one', async () => {
    const r = await handler('https://mcp.example.com')(event('401', '/mcp', challenge(SERVER_401)));
    assert.deepEqual(r.headers['www-authenticate'], [{ key: 'WWW-Authenticate', value: SERVER_401 }]);
    assert.equal(r.headers[REMAPPED], undefined);
    assert.equal(r.status, '401');
    assert.deepEqual(r.headers['content-type'], [{ key: 'Content-Type', value: 'application/json' }]);
  });

  it('copies it back on a 403 (insufficient_scope)', async () => {
    const value = 'Bearer error="insufficient_scope", scope="https://mcp.example.com/mcp/accounting", resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp/accounting"';
    const r = await handler()(event('403', '/mcp/accounting', challenge(value)));
    assert.deepEqual(r.headers['www-authenticate'], [{ key: 'WWW-Authenticate', value }]);
  });

  it('builds the discovery challenge on a 401 without the renamed header: the resource origin and the request path', async () => {
    const r = await handler('https://mcp.example.com')(event('401', '/mcp/accounting'));
    assert.deepEqual(r.headers['www-authenticate'], [{
      key: 'WWW-Authenticate',
      value: 'Bearer resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp/accounting"',
    }]);
  });

  it("takes the distribution's domain when synth knew no origin (no custom domain)", async () => {
    const r = await handler()(event('401', '/mcp'));
    assert.equal(r.headers['www-authenticate']![0]!.value, 'Bearer resource_metadata="https://d111111abcdef8.cloudfront.net/.well-known/oauth-protected-resource/mcp"');
  });

  it('points at the root metadata for a path that is not an MCP endpoint (nothing from the path reaches the header)', async () => {
    const r = await handler('https://mcp.example.com')(event('401', '/mcp/a"b'));
    assert.equal(r.headers['www-authenticate']![0]!.value, 'Bearer resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource"');
  });

  it('leaves a 200 untouched', async () => {
    const e = event('200', '/mcp');
    const before = structuredClone(e.Records[0]!.cf.response);
    assert.deepEqual(await handler('https://mcp.example.com')(e), before);
  });

  it('leaves a 403 without a challenge untouched (a Host or Origin refusal has nothing to restore)', async () => {
    const e = event('403', '/mcp');
    const before = structuredClone(e.Records[0]!.cf.response);
    assert.deepEqual(await handler()(e), before);
  });

  it('keeps a WWW-Authenticate that arrived intact', async () => {
    const e = event('401', '/mcp', { 'www-authenticate': [{ key: 'WWW-Authenticate', value: 'Bearer realm="x"' }] });
    assert.deepEqual((await handler()(e)).headers['www-authenticate'], [{ key: 'WWW-Authenticate', value: 'Bearer realm="x"' }]);
  });

  it('fits CloudFormation inline code, origin filled in as a JSON string', () => {
    const code = edgeFunctionCode('https://mcp.example.com');
    assert.ok(code.length <= 4096, `${code.length} characters`);
    assert.match(code, /^const RESOURCE_ORIGIN = "https:\/\/mcp\.example\.com";$/m);
    assert.match(edgeFunctionCode(), /^const RESOURCE_ORIGIN = '';$/m);
  });
});
