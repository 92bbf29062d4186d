/**
 * Idempotency-Key handling (DESIGN.md §4): the scope is account + route + key, the body is
 * compared by a hash of its canonical JSON (key order does not matter), records live 24 h.
 */
import { createHash } from 'node:crypto';
import type { IdempotencyClaim } from '../store/store.js';

export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value as Record<string, unknown>)
        .sort()
        .map((k) => [k, canonical((value as Record<string, unknown>)[k])]),
    );
  }
  return value;
}

export function bodyHash(body: unknown): string {
  return createHash('sha256').update(JSON.stringify(canonical(body ?? null))).digest('hex');
}

export function idempotencyClaim(route: string, key: string, body: unknown, now: Date): IdempotencyClaim {
  return { route, key, bodyHash: bodyHash(body), expiresAt: new Date(now.getTime() + IDEMPOTENCY_TTL_MS).toISOString() };
}
