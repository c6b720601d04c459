// The validation toolkit of the deployment configuration (config.ts, oauth-config.ts): every
// problem is collected with the key it concerns, and each getter still returns a usable value
// (the default) after a problem, so one run reports everything that is wrong.

export type Json = Record<string, unknown>;

/** A lower-case host name, optionally with a port. */
export const HOST = /^(?=.{1,253}(:|$))([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}(:\d{1,5})?$/;

/** Collects every problem; `get*` return a usable value (the default) even after a problem. */
export class Checker {
  readonly problems: string[] = [];

  problem(path: string, message: string): void {
    this.problems.push(`${path}: ${message}`);
  }

  object(path: string, value: unknown, allowed: readonly string[]): Json {
    if (value === undefined) return {};
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      this.problem(path, `expected an object, got ${describe(value)}`);
      return {};
    }
    for (const key of Object.keys(value)) {
      if (!allowed.includes(key)) {
        const hint = closest(key, allowed);
        this.problem(join2(path, key), `unknown key${hint ? ` (did you mean \`${hint}\`?)` : ''}`);
      }
    }
    return value as Json;
  }

  string(path: string, value: unknown, pattern: RegExp, what: string): string | undefined {
    if (value === undefined) return undefined;
    if (typeof value !== 'string' || !pattern.test(value)) {
      this.problem(path, `expected ${what}, got ${describe(value)}`);
      return undefined;
    }
    return value;
  }

  /** `value` as checked by another method: a missing value is reported unless already reported as bad. */
  required<T>(path: string, value: T | undefined, what: string): T {
    if (value === undefined && !this.problems.some((p) => p.startsWith(`${path}: `))) {
      this.problem(path, `required (${what})`);
    }
    return value as T;
  }

  integer(path: string, value: unknown, fallback: number, min: number, max: number): number {
    if (value === undefined) return fallback;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
      this.problem(path, `expected an integer from ${min} to ${max}, got ${describe(value)}`);
      return fallback;
    }
    return value;
  }

  boolean(path: string, value: unknown, fallback: boolean): boolean {
    if (value === undefined) return fallback;
    if (typeof value !== 'boolean') {
      this.problem(path, `expected true or false, got ${describe(value)}`);
      return fallback;
    }
    return value;
  }

  list(path: string, value: unknown, pattern: RegExp, what: string): string[] {
    if (value === undefined) return [];
    if (!Array.isArray(value)) {
      this.problem(path, `expected a list of ${what}, got ${describe(value)}`);
      return [];
    }
    const out: string[] = [];
    value.forEach((item, i) => {
      const s = this.string(`${path}[${i}]`, item, pattern, what);
      if (s !== undefined) out.push(s);
    });
    const dupes = out.filter((s, i) => out.indexOf(s) !== i);
    if (dupes.length > 0) this.problem(path, `listed twice: ${[...new Set(dupes)].join(', ')}`);
    return out;
  }
}

export function join2(path: string, key: string): string {
  return path ? `${path}.${key}` : key;
}

export function describe(value: unknown): string {
  return value === undefined ? 'nothing' : `\`${JSON.stringify(value)}\``;
}

/** The allowed key nearest to a misspelt one (edit distance ≤ 3), for the error message. */
export function closest(key: string, allowed: readonly string[]): string | undefined {
  const distance = (a: string, b: string): number => {
    const row = Array.from({ length: b.length + 1 }, (_, j) => j);
    for (let i = 1; i <= a.length; i++) {
      let prev = row[0]!;
      row[0] = i;
      for (let j = 1; j <= b.length; j++) {
        const tmp = row[j]!;
        row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
        prev = tmp;
      }
    }
    return row[b.length]!;
  };
  let best: string | undefined;
  let bestDistance = 4;
  for (const candidate of allowed) {
    const d = distance(key.toLowerCase(), candidate.toLowerCase());
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  return best;
}
