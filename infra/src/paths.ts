// Where the app finds the rest of the repository. Everything is resolved from this file, so the
// app and the tests work from any working directory.
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** infra/ */
export const INFRA_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '..');
/** The repository root (the Cargo workspace cargo-lambda builds from). */
export const REPO_ROOT = resolve(INFRA_DIR, '..');
/** The workspace manifest: every function is a `binaryName` of this workspace. */
export const WORKSPACE_MANIFEST = join(REPO_ROOT, 'Cargo.toml');
/** The shipped connector catalogs (the ones embedded in mcp-server). */
export const CATALOG_DIR = join(REPO_ROOT, 'functions', 'mcp-server', 'catalogs');
/** Logs Insights queries, one per `*.insights` file: what the digest runs and the dashboard shows. */
export const QUERIES_DIR = join(REPO_ROOT, 'queries');
/** `functions/<name>/src/config.rs`: the env var names a function reads. */
export const functionConfigRs = (fn: string): string =>
  join(REPO_ROOT, 'functions', fn, 'src', 'config.rs');
