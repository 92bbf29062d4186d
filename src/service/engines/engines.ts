/** Which engine serves a check: live keys probe the network, `ps_test.` keys use the sandbox (docs/design.md §3). */
import type { Engine } from '../../core/ports.js';
import type { SmtpSessionStats } from './session-stats.js';
import type { KeyMode } from '../../store/api-keys.js';
import type { Refusal } from '../errors.js';

export interface Engines {
  live: Engine;
  sandbox: Engine;
  /** Sessions the live engine opened, for /metrics (set by loadEngines). */
  smtpSessions?: SmtpSessionStats;
  /**
   * Why live checks are refused on this server, when they are: the live engine has no probe
   * identity (PRESEND_HELO_NAME, PRESEND_MAIL_FROM), so every address that needs a probe would
   * come back UNKNOWN — live keys are refused with this message (nothing held or billed) instead
   * of being charged for DNS-only answers. Undefined when the live engine can probe.
   */
  liveChecksOff?: string;
}

/** The refusal message for live checks on an engine without a probe identity (see Engines.liveChecksOff). */
export function liveChecksOffMessage(missing: readonly string[]): string | undefined {
  if (missing.length === 0) return undefined;
  return `Live checks are off on this server until its operator sets ${missing.join(' and ')} (docs/deploy.md): live keys are refused and nothing is billed. Sandbox keys (ps_test.) work meanwhile.`;
}

/** The refusal of a live key's work (a check, a batch) while live checks are off; null when it may go on. */
export function liveChecksRefusal(mode: KeyMode, liveChecksOff: string | undefined): Refusal | null {
  if (mode !== 'live' || liveChecksOff === undefined) return null;
  return { kind: 'refused', code: 'service_unavailable', message: liveChecksOff };
}

export function engineFor(engines: Engines, sandbox: boolean): Engine {
  return sandbox ? engines.sandbox : engines.live;
}

export async function closeEngines(engines: Engines): Promise<void> {
  await Promise.allSettled([engines.live.close(), engines.sandbox.close()]);
}
