/**
 * Per-route politeness (issue 22): what one MX host sees from one egress route is held to
 * `sessionsPerMinute` new sessions and `rcptsPerMinute` RCPTs, spent from a PolitenessBudget
 * (ports.ts) that every worker shares on PostgreSQL. A recipient or a session that finds the
 * budget empty WAITS here, in line per route × host × kind (first come, first served); it is
 * never failed and never counted an attempt. A recipient that would wait past the host-throttle
 * bound (PRESEND_HOST_THROTTLE_BOUND_MS) is not asked: it ends `host_throttled`
 * (recheck_scheduled), as when the host itself keeps throttling us (put-back.ts).
 *
 * Each line polls the budget for itself, one token at a time, sleeping until the budget says
 * the next token is there: a line of thousands costs the store one round trip per token, not
 * per waiter. RCPTs are spent as a recipient is handed to the host's queue (politeness.ts); so
 * that recipients let through while no session could open do not gather and leave together, a
 * host's RCPT line holds while a session of the same route and host waits for its token.
 */
import { setTimeout as delay } from 'node:timers/promises';
import type { Clock, PolitenessBudget, PolitenessKind, PolitenessStats, WaitClock } from '../ports.js';

export interface PoliteGateOptions {
  budget: PolitenessBudget;
  /** New sessions per minute per route and MX host; 0: no limit. */
  sessionsPerMinute: number;
  /** RCPTs per minute per route and MX host; 0: no limit. */
  rcptsPerMinute: number;
  /** A recipient that would wait longer than this for an RCPT token ends `host_throttled`. */
  boundMs: number;
  clock: WaitClock;
}

/** Let through; would wait past the bound (recipients only); or not at all: the engine closes, or the caller gave up. */
export type Admission = 'go' | 'too_long' | 'closed' | 'aborted';

interface Waiter {
  since: number;
  waited: boolean;
  settle(admission: Admission): void;
}

/** The waiters of one route × host × kind in this process, and whether its pump runs. */
class BucketLine {
  readonly waiters: Waiter[] = [];
  pumping = false;
  private readonly onDrained: Array<() => void> = [];

  /** Resolves once nobody waits in this line. */
  drained(): Promise<void> {
    if (this.waiters.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.onDrained.push(resolve));
  }

  /** The head, out of the line, with `admission`. */
  settleHead(admission: Admission): void {
    this.waiters.shift()?.settle(admission);
    if (this.waiters.length === 0) for (const wake of this.onDrained.splice(0)) wake();
  }

  remove(waiter: Waiter): void {
    const at = this.waiters.indexOf(waiter);
    if (at < 0) return;
    if (at === 0) return this.settleHead('aborted');
    this.waiters.splice(at, 1);
    waiter.settle('aborted');
  }
}

const keyOf = (route: string, host: string, kind: PolitenessKind): string => `${route}\u0000${host}\u0000${kind}`;

/** The engine's clock, with timers that end early when aborted. */
export function systemWaitClock(clock: Clock): WaitClock {
  return {
    now: () => clock.now().getTime(),
    sleep: (ms, signal) => delay(Math.max(0, ms), undefined, signal ? { signal } : {}).catch(() => undefined),
  };
}

export class PoliteGate {
  private readonly lines = new Map<string, BucketLine>();
  private readonly waitCounts = new Map<string, number>();
  private readonly tooLongCounts = new Map<string, number>();
  private readonly closing = new AbortController();

  constructor(private readonly o: PoliteGateOptions) {}

  /** Per minute for `kind`; 0: not limited. */
  limit(kind: PolitenessKind): number {
    return kind === 'rcpt' ? this.o.rcptsPerMinute : this.o.sessionsPerMinute;
  }

  get boundMs(): number {
    return this.o.boundMs;
  }

  now(): number {
    return this.o.clock.now();
  }

  /** Waits for one token of (route, host, kind): at once when the kind is not limited. */
  admit(route: string, host: string, kind: PolitenessKind, signal?: AbortSignal): Promise<Admission> {
    const perMinute = this.limit(kind);
    if (perMinute <= 0) return Promise.resolve('go');
    if (this.closing.signal.aborted) return Promise.resolve('closed');
    if (signal?.aborted) return Promise.resolve('aborted');
    const key = keyOf(route, host, kind);
    let line = this.lines.get(key);
    if (!line) {
      line = new BucketLine();
      this.lines.set(key, line);
    }
    // Tokens come one per interval at most: the p-th in line waits at least p intervals, whatever other workers spend.
    if (kind === 'rcpt' && line.waiters.length * (60_000 / perMinute) > this.o.boundMs) {
      this.count(this.tooLongCounts, route);
      return Promise.resolve('too_long');
    }
    const current = line;
    return new Promise((resolve) => {
      const abort = (): void => current.remove(waiter);
      const waiter: Waiter = {
        since: this.now(),
        waited: false,
        settle: (admission) => {
          signal?.removeEventListener('abort', abort);
          if (admission === 'too_long') this.count(this.tooLongCounts, route);
          resolve(admission);
        },
      };
      signal?.addEventListener('abort', abort, { once: true });
      current.waiters.push(waiter);
      if (!current.pumping) void this.pump(route, host, kind, current);
    });
  }

  /** Hands out the line's tokens as the budget gives them, until nobody waits. */
  private async pump(route: string, host: string, kind: PolitenessKind, line: BucketLine): Promise<void> {
    line.pumping = true;
    const perMinute = this.limit(kind);
    try {
      while (line.waiters.length > 0 && !this.closing.signal.aborted) {
        const now = this.now();
        if (kind === 'rcpt') {
          // Recipients that have waited past the bound are not asked (host_throttled).
          while (line.waiters[0] && now - line.waiters[0].since > this.o.boundMs) line.settleHead('too_long');
          const oldest = line.waiters[0];
          if (!oldest) break;
          const untilBound = oldest.since + this.o.boundMs - now + 1;
          const session = this.lines.get(keyOf(route, host, 'session'));
          if (session && session.waiters.length > 0) {
            this.noteWaits(line, route, kind);
            await this.sleepUnless(untilBound, session.drained());
            continue;
          }
          const taken = await this.takeToken(route, host, kind, perMinute, now);
          if (taken === null) line.settleHead('go');
          else {
            this.noteWaits(line, route, kind);
            await this.sleepUnless(Math.min(taken, untilBound));
          }
          continue;
        }
        const taken = await this.takeToken(route, host, kind, perMinute, now);
        if (taken === null) line.settleHead('go');
        else {
          this.noteWaits(line, route, kind);
          await this.sleepUnless(taken);
        }
      }
    } finally {
      line.pumping = false;
      if (line.waiters.length === 0 && this.lines.get(keyOf(route, host, kind)) === line) this.lines.delete(keyOf(route, host, kind));
    }
  }

  /** null: a token was taken; else the milliseconds until the budget has one. */
  private async takeToken(route: string, host: string, kind: PolitenessKind, perMinute: number, nowMs: number): Promise<number | null> {
    const taken = await this.o.budget.take({ route, host, kind, perMinute, nowMs });
    return taken.granted ? null : Math.max(1, taken.retryAfterMs);
  }

  /** Sleeps `ms` of the gate's clock, cut short by `wake` or by close(). */
  private async sleepUnless(ms: number, wake?: Promise<void>): Promise<void> {
    const cut = new AbortController();
    const signal = AbortSignal.any([cut.signal, this.closing.signal]);
    void wake?.then(() => cut.abort());
    await this.o.clock.sleep(ms, signal);
    cut.abort();
  }

  /** Each waiter counts one wait, however long it lasts. */
  private noteWaits(line: BucketLine, route: string, kind: PolitenessKind): void {
    for (const waiter of line.waiters) {
      if (waiter.waited) continue;
      waiter.waited = true;
      this.count(this.waitCounts, `${route}\u0000${kind}`);
    }
  }

  private count(counts: Map<string, number>, key: string): void {
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }

  stats(): PolitenessStats {
    return {
      waits: [...this.waitCounts].map(([key, count]) => {
        const [route = '', kind = 'rcpt'] = key.split('\u0000');
        return { route, kind: kind as PolitenessKind, count };
      }),
      tooLong: [...this.tooLongCounts].map(([route, count]) => ({ route, count })),
    };
  }

  /** Everyone waiting is let go (`closed`); nothing waits from now on. */
  close(): void {
    this.closing.abort();
    for (const line of this.lines.values()) while (line.waiters.length > 0) line.settleHead('closed');
    this.lines.clear();
  }
}
