/**
 * DNS answers stamped with when they were looked up and how long that took, so a check that
 * reads one from the facts cache can say "from the cache, 3 min old" (evidence.ts). The stamp
 * rides inside the cached value (plain JSON, so PostgreSQL's shared cache keeps it too); values
 * cached before the stamp existed read as "from the cache, age unknown".
 */
import type { EvidenceFact } from './evidence.js';

export interface FactStamp {
  /** Epoch ms the lookup finished. */
  lookedUpAt?: number;
  lookupMs?: number;
}

export type Stamped<T> = T & FactStamp;

/** Runs a lookup and stamps its value (a fresh object: the lookup's own is not touched). */
export async function stamped<T extends object>(now: () => number, lookup: () => Promise<T>): Promise<Stamped<T>> {
  const started = now();
  const value = await lookup();
  const at = now();
  return { ...value, lookedUpAt: at, lookupMs: at - started };
}

/** A fact as the check used it: looked up during the check (since `checkStarted`), or read from the cache. */
export function factOf(key: string, value: FactStamp, checkStarted: number, summary: string): EvidenceFact {
  const at = value.lookedUpAt;
  if (at !== undefined && at >= checkStarted) return { key, source: 'lookup', tookMs: value.lookupMs ?? null, ageMs: null, summary };
  return { key, source: 'cache', tookMs: null, ageMs: at === undefined ? null : checkStarted - at, summary };
}
