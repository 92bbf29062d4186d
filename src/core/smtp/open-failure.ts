/**
 * What a session that could not be opened means for its host's waiting recipients. Pure; the
 * queue (host-queue.ts) acts on it.
 */
import type { SessionFailure } from './session.js';

export type OpenFailureFate =
  /** Another session of ours is up or on its way: the host is merely busier than our limit (421 too many connections). `teaches`: it refused for now, so its session limit is lower than we thought. */
  | { kind: 'busier'; teaches: boolean }
  /** A 421 at the greeting (too many connections, a rate limit): a pause, not about the recipients. */
  | { kind: 'paused' }
  /** Not reached at all (RFC 5321 §5.1: only this passes the mail to the next MX). */
  | { kind: 'unreachable' }
  /** The host answered — 554 at the banner, garbage, a dropped EHLO — and has spoken for the domain. */
  | { kind: 'failed' };

export function openFailureFate(failure: SessionFailure, otherSessions: boolean): OpenFailureFate {
  const refusedForNow = failure.kind === 'temporary' && (failure.step === 'banner' || failure.step === 'ehlo' || failure.step === 'helo');
  if (otherSessions) return { kind: 'busier', teaches: refusedForNow };
  if (refusedForNow) return { kind: 'paused' };
  const unreachable =
    failure.kind === 'refused' || failure.kind === 'proxy' || (failure.kind === 'timeout' && (failure.step === 'connect' || failure.step === 'banner'));
  return unreachable ? { kind: 'unreachable' } : { kind: 'failed' };
}
