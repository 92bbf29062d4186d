/**
 * The cheap prober-health checks (DNS queries only, no SMTP session: doctor.ts `cheapChecks`)
 * of a running service or worker: run at start-up and logged, then again every few minutes,
 * and what is not ✓ is listed in /readyz's warnings.
 *
 * Readiness never fails on the prober's account, broken or not: a node whose prober cannot
 * probe still serves sandbox keys, the dashboard and every results page, and every node behind
 * the same egress would fail together, emptying the load balancer for a problem that only live
 * checks have. The operator reads the warnings (and `presend doctor` for the full picture).
 */
import type { Logger } from '../../logger.js';
import { cheapChecks, type DoctorConfig, type DoctorDeps } from './doctor.js';
import type { HealthCheck } from './health-check.js';

/** How often the cheap checks run again: DNS records and blocklist listings change in hours, not seconds. */
export const RECHECK_INTERVAL_MS = 10 * 60 * 1000;

export function warningOf(check: HealthCheck): string {
  return `prober: ${check.summary}${check.action ? `. ${check.action}` : ''}`;
}

export class ProberHealthMonitor {
  private current: HealthCheck[] = [];
  private timer: NodeJS.Timeout | null = null;
  private lastProblems = '';
  /** Settles when the first run has been logged. */
  readonly firstRun: Promise<void>;
  private resolveFirst: () => void = () => undefined;

  constructor(
    private readonly config: DoctorConfig,
    private readonly log: Logger,
    private readonly deps: DoctorDeps & { intervalMs?: number } = {},
  ) {
    this.firstRun = new Promise((resolve) => (this.resolveFirst = resolve));
  }

  start(): void {
    void this.run();
    this.timer = setInterval(() => void this.run(), this.deps.intervalMs ?? RECHECK_INTERVAL_MS);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** What /readyz lists: every cheap check that is not ✓. */
  warnings(): string[] {
    return this.current.filter((c) => c.status !== 'ok').map(warningOf);
  }

  private async run(): Promise<void> {
    try {
      const report = await cheapChecks(this.config, this.deps);
      this.current = report.checks;
      const problems = report.checks.filter((c) => c.status !== 'ok');
      const key = problems.map((c) => `${c.id}:${c.status}`).join(',');
      // Logged at start-up, then only when what is wrong changes: a log line every ten minutes saying the same is noise.
      if (this.lastProblems === '' || key !== this.lastProblems) {
        for (const check of problems) this.log.warn({ check: check.id, route: check.route, status: check.status, action: check.action }, `prober health: ${check.summary}`);
        this.log.info({ health: report.health, checks: report.checks.length, problems: problems.length }, 'prober health (cheap checks; `presend doctor` runs them all)');
      }
      this.lastProblems = key || 'none';
    } catch (error) {
      this.log.warn({ err: error }, 'prober health checks failed to run');
    } finally {
      this.resolveFirst();
    }
  }
}
