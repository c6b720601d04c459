// Where the app finds the rest of the repository. Everything is resolved from this file, so the
// app and the tests work from any working directory.
import { existsSync, readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** infra/ */
export const INFRA_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '..');
/** The repository root (the Cargo workspace cargo-lambda builds from). */
export const REPO_ROOT = resolve(INFRA_DIR, '..');
/** The workspace manifest: every function is a `binaryName` of this workspace. */
export const WORKSPACE_MANIFEST = join(REPO_ROOT, 'Cargo.toml');
/** The shipped connector catalogs (the ones every function embeds, from the `connector` crate). */
export const CATALOG_DIR = join(REPO_ROOT, 'shared', 'connector', 'catalogs');
/** Logs Insights queries, one per `*.insights` file: what the digest runs and the dashboard shows. */
export const QUERIES_DIR = join(REPO_ROOT, 'queries');
/** The env var names a function reads: `functions/<name>/src/config.rs`, or one module down
 * (`src/inventory/config.rs` in mcp-server). */
export const functionConfigRs = (fn: string): string => {
  const src = join(REPO_ROOT, 'functions', fn, 'src');
  const top = join(src, 'config.rs');
  if (existsSync(top)) return top;
  const nested = readdirSync(src, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => join(src, d.name, 'config.rs'))
    .filter(existsSync);
  if (nested.length !== 1) throw new Error(`${src}: expected one config.rs, found ${nested.length}`);
  return nested[0]!;
};
