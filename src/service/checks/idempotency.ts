/**
 * Idempotency-Key handling (docs/design.md §4): the scope is account + key mode + route + key, the body is
 * compared by a hash of its canonical JSON (key order does not matter), records live 24 h.
 */
import { createHash } from 'node:crypto';
import type { IdempotencyClaim } from '../../store/roles/idempotency.js';
import type { KeyMode } from '../../store/api-keys.js';

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

/**
 * The stored scope of a claim: a sandbox key's claims never meet a live key's, so a sandbox
 * answer is never replayed to a live call of the same account. Live claims keep the bare route
 * (the form records had before modes were told apart: a live retry across an upgrade still replays).
 */
function scopeOf(route: string, mode: KeyMode): string {
  return mode === 'live' ? route : `${route} [sandbox]`;
}

export function idempotencyClaim(route: string, mode: KeyMode, key: string, body: unknown, now: Date): IdempotencyClaim {
  return { route: scopeOf(route, mode), key, bodyHash: bodyHash(body), expiresAt: new Date(now.getTime() + IDEMPOTENCY_TTL_MS).toISOString() };
}
