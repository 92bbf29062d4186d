/**
 * The engines of a running service: the live engine on the configured DNS/SMTP (docs/design.md §2)
 * and the sandbox engine for `ps_test.` keys. config.sandboxSlowDelayMs shortens the sandbox's
 * `slow@` delay (tests and demos only).
 */
import { missingProbeIdentity, type PresendConfig } from '../../config.js';
import { createEngine, createMemorySessionLimiter, createSandboxEngine, systemClock } from '../../core/index.js';
import type { EngineDeps } from '../../core/index.js';
import { liveChecksOffMessage, type Engines } from './engines.js';
import { countingLimiter } from './session-stats.js';
import type { SmtpSessionStats } from './session-stats.js';

/** `deps`: the backend's engine state (its session limiter and facts cache), shared across processes on PostgreSQL. */
export function loadEngines(config: PresendConfig, deps: EngineDeps = {}): Engines {
  const slowDelayMs = config.sandboxSlowDelayMs ?? undefined;
  const smtpSessions: SmtpSessionStats = { opened: 0, open: 0 };
  const limiter = countingLimiter(deps.limiter ?? createMemorySessionLimiter(config.maxSessionsPerMx), smtpSessions);
  const liveChecksOff = liveChecksOffMessage(missingProbeIdentity(config));
  return {
    ...(liveChecksOff !== undefined ? { liveChecksOff } : {}),
    smtpSessions,
    live: createEngine(config, { ...deps, limiter }),
    sandbox: createSandboxEngine(systemClock, { recheckDelayMs: config.sandboxRecheckDelayMs, ...(slowDelayMs !== undefined ? { slowDelayMs } : {}) }),
  };
}
