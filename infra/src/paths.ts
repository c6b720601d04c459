// Where the app finds the rest of the repository. Everything is resolved from this file, so the
// app and the tests work from any working directory.
import { existsSync } from 'node:fs';
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
/** The env var names a function reads: its `config` module, `functions/<name>/src/config.rs`
 * or `src/config/mod.rs` (mcp-server). */
export const functionConfigRs = (fn: string): string => {
  const src = join(REPO_ROOT, 'functions', fn, 'src');
  const found = [join(src, 'config.rs'), join(src, 'config', 'mod.rs')].filter(existsSync);
  if (found.length !== 1) throw new Error(`${src}: expected one config module, found ${found.length}`);
  return found[0]!;
};
