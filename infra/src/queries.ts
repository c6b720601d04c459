// The Logs Insights queries in queries/*.insights: the single source of truth the digest runs.
// Read at synth time, byte for byte, so a dashboard widget shows exactly the digest's query.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';

export interface InsightsQuery {
  /** File name without `.insights`, e.g. `top_failing_tools`. */
  readonly name: string;
  readonly file: string;
  /** The file's text, unchanged. */
  readonly text: string;
}

export const QUERY_SUFFIX = '.insights';

/** Every `*.insights` file in `dir`, sorted by name; none when the folder is missing or empty. */
export function readQueries(dir: string): InsightsQuery[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith(QUERY_SUFFIX))
    .sort()
    .map((f) => {
      const file = join(dir, f);
      const text = readFileSync(file, 'utf8');
      if (text.trim() === '') throw new Error(`${file}: empty query`);
      return { name: basename(f, QUERY_SUFFIX), file, text };
    });
}
