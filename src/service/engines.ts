/** Which engine serves a check: live keys probe the network, `ps_test.` keys use the sandbox (DESIGN.md §3). */
import type { Engine } from '../core/ports.js';
import type { SmtpSessionStats } from './session-stats.js';

export interface Engines {
  live: Engine;
  sandbox: Engine;
  /** Sessions the live engine opened, for /metrics (set by loadEngines). */
  smtpSessions?: SmtpSessionStats;
}

export function engineFor(engines: Engines, sandbox: boolean): Engine {
  return sandbox ? engines.sandbox : engines.live;
}

export async function closeEngines(engines: Engines): Promise<void> {
  await Promise.allSettled([engines.live.close(), engines.sandbox.close()]);
}
