/**
 * The prober's health as data (issue 22): each check says what it found, what that means for
 * the probes and what to do about it, so `presend doctor` prints it as a table, `--json` hands
 * it to scripts, /readyz lists the cheap ones and the worker logs them at start-up — one shape
 * for all four.
 */

/** ✓ fine; ! could not be checked, or worth a look; ✗ wrong. */
export type CheckStatus = 'ok' | 'warn' | 'fail';

/**
 * What a failing check does to the prober. `broken`: no probe can get an answer (port 25
 * blocked, the proxy refuses it, no DNS); `degraded`: probes go out but receivers will block
 * or distrust them (a blocklist listing, no PTR, an SPF record that leaves the egress out).
 */
export type Impact = 'degraded' | 'broken';

export interface HealthCheck {
  /** Stable name for scripts: `port25`, `ptr`, `dnsbl:zen.spamhaus.org`, `replies:microsoft`, … */
  id: string;
  /** The egress route the check is about (`direct`, `proxy`); null for checks of the whole prober. */
  route: string | null;
  status: CheckStatus;
  /** What a failure of this check does (only read when status is `fail`). */
  impact: Impact;
  /** What was found, in one line. */
  summary: string;
  /** What it means for the probes. */
  meaning: string;
  /** What the operator should do; null when nothing. */
  action: string | null;
  /** Figures behind the summary (addresses, answers, counts), for --json. */
  detail?: Record<string, unknown>;
}

export type OverallHealth = 'healthy' | 'degraded' | 'broken';

export function overallHealth(checks: readonly HealthCheck[]): OverallHealth {
  if (checks.some((c) => c.status === 'fail' && c.impact === 'broken')) return 'broken';
  if (checks.some((c) => c.status !== 'ok')) return 'degraded';
  return 'healthy';
}

/** `presend doctor`'s exit code: 0 healthy, 1 degraded, 2 broken. */
export function healthExitCode(health: OverallHealth): 0 | 1 | 2 {
  return health === 'healthy' ? 0 : health === 'degraded' ? 1 : 2;
}

export const STATUS_MARK: Record<CheckStatus, string> = { ok: '✓', warn: '!', fail: '✗' };

type CheckText = Omit<HealthCheck, 'status' | 'route'>;

export function passed(route: string | null, check: Omit<CheckText, 'action'>): HealthCheck {
  return { ...check, route, status: 'ok', action: null };
}

export function warned(route: string | null, check: CheckText): HealthCheck {
  return { ...check, route, status: 'warn' };
}

export function failed(route: string | null, check: CheckText): HealthCheck {
  return { ...check, route, status: 'fail' };
}
