/**
 * The RoutePauses of one process (src/core/ports.ts): a map. The default of the engine, and what
 * a SQLite store hands it (one process probes there); PostgreSQL's is src/store/postgres/route-pauses.ts.
 */
import type { RoutePauses } from '../ports.js';
import type { RoutePause } from './route-pause.js';

export function createMemoryRoutePauses(): RoutePauses {
  const records = new Map<string, RoutePause>();
  const keyOf = (route: string, scope: string): string => `${route}\u0000${scope}`;
  return {
    list: async () => [...records.values()],
    async update(route, scope, next) {
      const key = keyOf(route, scope);
      const kept = next(records.get(key) ?? null);
      records.set(key, kept);
      return kept;
    },
    async forgetLapsed(route, scope, nowMs) {
      const key = keyOf(route, scope);
      const record = records.get(key);
      if (record && record.until <= nowMs) records.delete(key);
    },
  };
}
