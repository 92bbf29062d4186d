/**
 * The default FactsCache (an in-memory TTL map with a size bound) and single-flight
 * de-duplication: concurrent lookups of one key share one DNS query or one catch-all probe.
 */
import type { Clock, FactsCache } from './ports.js';

export function createMemoryFactsCache(clock: Clock, maxEntries = 100_000): FactsCache {
  const entries = new Map<string, { value: unknown; expiresAt: number }>();
  return {
    get<T>(key: string): Promise<T | undefined> {
      const entry = entries.get(key);
      if (!entry) return Promise.resolve(undefined);
      if (entry.expiresAt <= clock.now().getTime()) {
        entries.delete(key);
        return Promise.resolve(undefined);
      }
      return Promise.resolve(entry.value as T);
    },
    set<T>(key: string, value: T, ttlMs: number): Promise<void> {
      entries.delete(key);
      entries.set(key, { value, expiresAt: clock.now().getTime() + ttlMs });
      // Maps iterate in insertion order: the first key is the oldest write.
      if (entries.size > maxEntries) {
        const oldest = entries.keys().next();
        if (!oldest.done) entries.delete(oldest.value);
      }
      return Promise.resolve();
    },
  };
}

/** Runs `work` once per key at a time; callers arriving meanwhile share its promise. */
export class SingleFlight {
  private readonly inFlight = new Map<string, Promise<unknown>>();

  run<T>(key: string, work: () => Promise<T>): Promise<T> {
    const existing = this.inFlight.get(key);
    if (existing) return existing as Promise<T>;
    const promise = work().finally(() => this.inFlight.delete(key));
    this.inFlight.set(key, promise);
    return promise;
  }
}

/** Cache-then-single-flight: what every domain fact lookup needs. */
export async function cachedFact<T>(
  cache: FactsCache,
  flights: SingleFlight,
  key: string,
  ttlOf: (value: T) => number,
  work: () => Promise<T>,
): Promise<T> {
  const hit = await cache.get<T>(key);
  if (hit !== undefined) return hit;
  return flights.run(key, async () => {
    const value = await work();
    const ttl = ttlOf(value);
    if (ttl > 0) await cache.set(key, value, ttl);
    return value;
  });
}
