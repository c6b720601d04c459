// CDK app entry (cdk.json "app"). Plain JavaScript so an old Node fails with a clear message
// instead of a syntax error: the app itself is TypeScript run by Node's type stripping.
const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 18)) {
  process.stderr.write(
    `infra needs Node >= 22.18 (TypeScript type stripping); this is ${process.version}.\n` +
      'Run `source tests/tools/env.sh` (Node 22 from tests/tools/install.sh) first.\n',
  );
  process.exit(1);
}
const { main } = await import('../src/app.ts');
main();
