// The connector catalogs (shared/connector/catalogs/*.yaml), read at synth time for what infra
// needs from them: the connector names (per-connector env vars, dashboard rows), the quota
// blocks (quota alarms) and the spend limits (the dashboard's spend rows). The full format is validated by the Rust catalog crate and its schema.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { connectorEnvPrefix } from './config.ts';

export interface ConnectorQuota {
  /** Calls allowed per window, when declared. */
  readonly limit?: number;
  /** As written in the catalog: `{ calendar_month: TZ }`, `{ day: TZ }` or `{ rolling_hours: N }`. */
  readonly window?: Readonly<Record<string, unknown>>;
  /** Utilisation percentages as listed (quota-alarm: lowest warns, highest pages). */
  readonly thresholds: readonly number[];
  /** Response headers with the remaining / consumed quota, or a header family (`x_ratelimit`,
   * `ietf`) that reports the remaining requests, or figures in answers' bodies (`body`):
   * without one, nothing is measurable. */
  readonly remaining?: string;
  readonly consumed?: string;
  readonly headers?: string;
  readonly body?: true;
  /** The remaining is a prepaid balance (`balance: true`): quota-alarm forecasts nothing. */
  readonly balance?: true;
}

/** `quota.caller_daily_spend`: what one caller may spend per UTC day, in the upstream's unit. */
export interface ConnectorSpend {
  /** `predictions`, `credits`. */
  readonly unit: string;
  readonly limit: number;
}

export interface ConnectorCatalog {
  readonly connector: string;
  readonly file: string;
  readonly quota?: ConnectorQuota;
  /** Tools of this connector spend money: the unit they are counted in and a caller's daily limit. */
  readonly spend?: ConnectorSpend;
  /** `auth: { oauth_user: … }`: each person's own upstream account (the vault, `/connect/<connector>`). */
  readonly oauthUser?: true;
  /** `inbound`: the upstream pushes signed webhooks to `/inbound/<connector>` (the inbound table, its key, the route). */
  readonly inbound?: true;
}

/** Every `*.yaml` catalog in `dir`, sorted by file name. */
export function readCatalogs(dir: string): ConnectorCatalog[] {
  const files = readdirSync(dir).filter((f) => f.endsWith('.yaml') || f.endsWith('.yml')).sort();
  const catalogs = files.map((file) => parseCatalog(readFileSync(join(dir, file), 'utf8'), file));
  const seen = new Map<string, string>();
  for (const c of catalogs) {
    const other = seen.get(c.connector);
    if (other) throw new Error(`${c.file}: connector \`${c.connector}\` is also declared in ${other}`);
    seen.set(c.connector, c.file);
  }
  return catalogs;
}

export function parseCatalog(text: string, file: string): ConnectorCatalog {
  const doc = parse(text) as Record<string, unknown> | null;
  const connector = doc?.connector;
  if (typeof connector !== 'string') throw new Error(`${file}: no \`connector:\` name`);
  try {
    connectorEnvPrefix(connector);
  } catch (e) {
    throw new Error(`${file}: ${(e as Error).message}`);
  }
  const auth = doc?.auth as Record<string, unknown> | undefined | null;
  const perUser = {
    ...(typeof auth === 'object' && auth !== null && auth.oauth_user !== undefined ? { oauthUser: true as const } : {}),
    ...(typeof doc?.inbound === 'object' && doc.inbound !== null ? { inbound: true as const } : {}),
  };
  const q = doc?.quota as Record<string, unknown> | undefined | null;
  if (q === undefined || q === null) return { connector, file, ...perUser };
  const bad = (what: string): Error => new Error(`${file}: quota.${what}`);
  const limit = q.limit;
  if (limit !== undefined && (typeof limit !== 'number' || !Number.isInteger(limit) || limit <= 0)) {
    throw bad(`limit must be a positive integer, got ${JSON.stringify(limit)}`);
  }
  const thresholds = q.thresholds ?? [];
  if (!Array.isArray(thresholds) || !thresholds.every((t) => Number.isInteger(t) && t >= 1 && t <= 100)) {
    throw bad(`thresholds must be percentages in 1..=100, got ${JSON.stringify(thresholds)}`);
  }
  const window = q.window;
  if (window !== undefined && (typeof window !== 'object' || window === null || Array.isArray(window))) {
    throw bad(`window must be one of { calendar_month: TZ }, { day: TZ }, { rolling_hours: N }, got ${JSON.stringify(window)}`);
  }
  const header = (k: 'remaining' | 'consumed' | 'headers'): string | undefined => (typeof q[k] === 'string' ? (q[k] as string) : undefined);
  const spend = q.caller_daily_spend as Record<string, unknown> | undefined | null;
  if (spend !== undefined && (typeof spend !== 'object' || spend === null || typeof spend.unit !== 'string'
    || !/^[a-z][a-z_]{0,31}$/.test(spend.unit) || !Number.isInteger(spend.limit) || (spend.limit as number) <= 0)) {
    throw bad(`caller_daily_spend must be { unit: WORD, limit: N }, got ${JSON.stringify(spend)}`);
  }
  return {
    connector,
    file,
    ...perUser,
    ...(spend ? { spend: { unit: spend.unit as string, limit: spend.limit as number } } : {}),
    quota: {
      ...(limit !== undefined ? { limit: limit as number } : {}),
      ...(window ? { window: window as Record<string, unknown> } : {}),
      thresholds: thresholds as number[],
      ...(header('remaining') ? { remaining: header('remaining') } : {}),
      ...(header('consumed') ? { consumed: header('consumed') } : {}),
      ...(header('headers') ? { headers: header('headers') } : {}),
      ...(typeof q.body === 'object' && q.body !== null ? { body: true as const } : {}),
      ...(q.balance === true ? { balance: true as const } : {}),
    },
  };
}
