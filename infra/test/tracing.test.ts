// Traces (issue 47): with `mcpServer.tracing`, mcp-server gets the ADOT collector layer, the
// OTLP endpoint and the sample ratio, and its role may send to X-Ray; without it, none of them.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseConfig } from '../src/config.ts';
import { BINARIES } from '../src/names.ts';
import { CONNECTORS, EXAMPLE_CONFIG, logicalId, merge, roleStatements, synth, testConfig } from './helpers.ts';

const FUNCTION = `hosted-mcp-example-${BINARIES.mcpServer}`;
const LAYER = 'arn:aws:lambda:eu-central-1:901920570463:layer:aws-otel-collector-arm64-ver-0-115-0:1';

function mcpServer(tracing?: Record<string, unknown>) {
  const { mcpT: t } = synth({ config: testConfig(tracing ? { mcpServer: { tracing } } : {}) });
  const fnId = logicalId(t, 'AWS::Lambda::Function', { FunctionName: FUNCTION });
  const props = t.toJSON().Resources[fnId].Properties;
  const roleId = Object.keys(t.findResources('AWS::IAM::Role')).find((id) => id.startsWith('McpServerRole'))!;
  const sids = roleStatements(t, roleId).statements.map((s) => s.sid);
  const sendTraces = roleStatements(t, roleId).statements.find((s) => s.sid === 'SendTraces');
  return { env: props.Environment.Variables, layers: props.Layers, sids, sendTraces };
}

describe('mcp-server traces', () => {
  it('off by default: no layer, no endpoint, no X-Ray permission', () => {
    const { env, layers, sids } = mcpServer();
    assert.equal(layers, undefined);
    assert.ok(!('MCP_OTLP_ENDPOINT' in env) && !('MCP_TRACE_SAMPLE_RATIO' in env));
    assert.ok(!sids.includes('SendTraces'), sids.join(','));
  });

  it('on: the configured ADOT layer, the local collector, the ratio and X-Ray writes only', () => {
    const { env, layers, sendTraces } = mcpServer({ sampleRatio: 0.25, layerArn: LAYER });
    assert.deepEqual(layers, [LAYER]);
    assert.equal(env.MCP_OTLP_ENDPOINT, 'http://localhost:4318');
    assert.equal(env.MCP_TRACE_SAMPLE_RATIO, '0.25');
    assert.deepEqual(sendTraces, { sid: 'SendTraces', actions: ['xray:PutTelemetryRecords', 'xray:PutTraceSegments'], resources: ['*'] });
  });

  it("on without a layer ARN: the CDK's generic ADOT collector layer of the region, one in ten traces", () => {
    const { env, layers } = mcpServer({});
    assert.equal(layers.length, 1);
    assert.match(JSON.stringify(layers[0]), /aws-otel-collector-arm64/);
    assert.equal(env.MCP_TRACE_SAMPLE_RATIO, '0.1');
  });

  it('refuses a ratio outside 0 to 1 and a layer that is no layer version ARN, naming each', () => {
    const raw = merge(EXAMPLE_CONFIG, { mcpServer: { tracing: { sampleRatio: 2, layerArn: 'aws-otel' } } });
    assert.throws(() => parseConfig(raw, 'test', CONNECTORS), (e: Error) =>
      e.message.includes('mcpServer.tracing.sampleRatio') && e.message.includes('mcpServer.tracing.layerArn'));
  });
});
