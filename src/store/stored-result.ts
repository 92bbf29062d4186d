/**
 * A final result as the store keeps it, for single checks and batch items alike, and as the API
 * renders it. Plain data, the same on every dialect.
 */
import type { EngineResult, LegacyDecision, PresendEnvelope } from '../core/types.js';

/** A final result as stored (and as the API renders it). */
export interface StoredResult {
  envelope: PresendEnvelope;
  legacy: LegacyDecision;
  score: number | null;
  checkedAt: string;
  attempts: number;
  providerFamily: string;
}

/** Turns an engine result into the stored form. */
export function toStoredResult(result: EngineResult): StoredResult {
  return {
    envelope: result.envelope,
    legacy: result.legacy,
    score: result.score,
    checkedAt: result.verifiedAt,
    attempts: result.attempts,
    providerFamily: result.providerFamily,
  };
}

