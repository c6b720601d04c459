// How the Lambda code gets built, offline: RustFunction's real local bundling against a fake
// `cargo` on PATH (so the exact cargo lambda command is checked without compiling), and the
// prebuilt-directory alternative.
import assert from 'node:assert/strict';
import { chmodSync, existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { Stack } from 'aws-cdk-lib';
import { Bundling } from 'cargo-lambda-cdk/lib/bundling.js';
import { REPO_ROOT } from '../src/paths.ts';
import { CATALOGS, synth, tempDir, writeFiles } from './helpers.ts';

const BINARIES = ['mcp-server', 'tool-error-digest', 'quota-alarm'];

// Before any RustFunction exists: cargo-lambda-cdk probes `cargo lambda --version` once per process.
const fakeBin = tempDir('fake-cargo');
const cargoLog = join(fakeBin, 'calls.log');
writeFileSync(
  join(fakeBin, 'cargo'),
  `#!/usr/bin/env bash
# Fake cargo: records the call, and for \`cargo lambda build\` writes <lambda-dir>/bootstrap naming the binary.
echo "$PWD|$*" >>"${cargoLog}"
if [[ "$1 $2" == "lambda --version" ]]; then echo "cargo-lambda 1.9.0 (fake)"; exit 0; fi
out=""; bin=""
while [[ $# -gt 0 ]]; do
  case "$1" in --lambda-dir) out="$2"; shift ;; --flatten) bin="$2"; shift ;; esac
  shift
done
mkdir -p "$out" && printf '%s' "$bin" >"$out/bootstrap"
`,
);
chmodSync(join(fakeBin, 'cargo'), 0o755);
process.env.PATH = `${fakeBin}:${process.env.PATH}`;
// The probe's answer is cached per process (other test files may have asked the real cargo).
Bundling.clearRunsLocallyCache();

/** The `bootstrap` each function of `stack` deploys, by function name. */
function bootstraps(outdir: string, stack: Stack, template: Record<string, any>): Record<string, string> {
  const assets = JSON.parse(readFileSync(join(outdir, `${stack.artifactId}.assets.json`), 'utf8')).files as Record<string, any>;
  const out: Record<string, string> = {};
  for (const r of Object.values(template.Resources) as any[]) {
    if (r.Type !== 'AWS::Lambda::Function') continue;
    const key = r.Properties.Code.S3Key as string;
    const asset = Object.values(assets).find((a) => Object.values(a.destinations).some((d: any) => d.objectKey === key));
    assert.ok(asset, `no asset for ${key}`);
    out[r.Properties.FunctionName] = readFileSync(join(outdir, asset.source.path, 'bootstrap'), 'utf8');
  }
  return out;
}

describe('cargo-lambda bundling (deploy path)', () => {
  const outdir = tempDir('cdk-out');
  const s = synth({ skipBundling: false, outdir });
  s.app.synth();
  const calls = readFileSync(cargoLog, 'utf8').trim().split('\n').map((l) => l.split('|'));
  const builds = calls.filter(([, args]) => args!.startsWith('lambda build'));

  it('builds each binary once, release, arm64, from the workspace root', () => {
    assert.equal(builds.length, 3);
    for (const bin of BINARIES) {
      const b = builds.find(([, args]) => args!.includes(`--bin ${bin} `));
      assert.ok(b, `no build of ${bin}: ${builds.map((x) => x[1]).join('\n')}`);
      const [cwd, args] = b;
      assert.equal(cwd, REPO_ROOT);
      assert.match(args!, new RegExp(`^lambda build --lambda-dir \\S+ --release --arm64 --bin ${bin} --flatten ${bin}$`));
    }
  });

  it('deploys the bootstrap of its own binary in each function', () => {
    assert.deepEqual(
      { ...bootstraps(outdir, s.mcp, s.mcpT.toJSON()), ...bootstraps(outdir, s.ops, s.opsT.toJSON()) },
      Object.fromEntries(BINARIES.map((b) => [`hosted-mcp-example-${b}`, b])),
    );
  });

  it('stages only the build output (the source tree is not copied)', () => {
    for (const d of readdirSync(outdir).filter((f) => f.startsWith('asset.'))) {
      assert.deepEqual(readdirSync(join(outdir, d)), ['bootstrap']);
    }
  });
});

describe('prebuilt code (-c lambdaAssetDir=…)', () => {
  it('takes <dir>/<binary>/bootstrap, with the same runtime, architecture and handler', () => {
    const dir = tempDir('prebuilt');
    for (const b of BINARIES) writeFiles(join(dir, b), { bootstrap: `prebuilt ${b}` });
    const outdir = tempDir('cdk-out-prebuilt');
    const s = synth({ code: { kind: 'prebuilt', dir }, outdir, skipBundling: false });
    s.app.synth();
    assert.deepEqual(
      { ...bootstraps(outdir, s.mcp, s.mcpT.toJSON()), ...bootstraps(outdir, s.ops, s.opsT.toJSON()) },
      Object.fromEntries(BINARIES.map((b) => [`hosted-mcp-example-${b}`, `prebuilt ${b}`])),
    );
    for (const t of [s.mcpT, s.opsT]) {
      for (const r of Object.values(t.findResources('AWS::Lambda::Function')) as any[]) {
        assert.equal(r.Properties.Runtime, 'provided.al2023');
        assert.deepEqual(r.Properties.Architectures, ['arm64']);
        assert.equal(r.Properties.Handler, 'bootstrap');
      }
    }
  });

  it('says how to build a missing binary', () => {
    const dir = tempDir('prebuilt-missing');
    assert.ok(!existsSync(join(dir, 'tool-error-digest')));
    assert.throws(
      () => synth({ code: { kind: 'prebuilt', dir }, catalogs: CATALOGS }),
      /tool-error-digest\/bootstrap is missing; build it with `cargo lambda build --release --arm64 --bin tool-error-digest --lambda-dir /,
    );
  });
});
