/**
 * Health of each egress route toward each provider family (issue 22). When a provider's
 * servers say the prober is blocked or its address listed (ip-block-signal.ts), that route is
 * paused for that provider only, for a backoff that doubles with each block in a row and is
 * forgotten once the route gets an ordinary answer from the provider again; work for the
 * provider goes to another route meanwhile. When every route a provider may use is paused,
 * `pick` says when the first comes back, so the work can wait for it (recheck_scheduled)
 * instead of burning its attempts into UNKNOWN.
 *
 * Like Postfix's per-destination state (its "dead host" backoff), this is kept apart from what
 * a reply says about a mailbox: only replies about us move it. Pure: the clock is injected.
 */
import type { EgressRoute } from './egress-routes.js';

export interface RouteHealthOptions {
  now: () => number;
  /** First pause after a block (default 10 minutes). */
  firstPauseMs?: number;
  /** Longest pause (default 6 hours: blocklist delistings and provider throttles clear in hours). */
  maxPauseMs?: number;
}

export type RoutePick = { kind: 'route'; route: EgressRoute } | { kind: 'all_paused'; retryAt: number };

export interface RoutePause {
  route: string;
  family: string;
  until: number;
  /** Blocks in a row that set this pause. */
  strikes: number;
  reason: string;
}

const DEFAULT_FIRST_PAUSE_MS = 10 * 60 * 1000;
const DEFAULT_MAX_PAUSE_MS = 6 * 60 * 60 * 1000;

/** FNV-1a of the key, modulo n: the same key, the same index. */
function stableIndex(key: string, n: number): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) hash = Math.imul(hash ^ key.charCodeAt(i), 0x01000193) >>> 0;
  return hash % n;
}

export class RouteHealth {
  private readonly pauses = new Map<string, RoutePause>();
  /** Blocks seen per route and family (for /metrics). */
  private readonly blockCounts = new Map<string, number>();

  constructor(
    private readonly routes: readonly EgressRoute[],
    private readonly options: RouteHealthOptions,
  ) {
    if (routes.length === 0) throw new Error('RouteHealth needs at least one route');
  }

  /** The routes a family may use: those pinned to it, else those pinned to nothing. */
  candidates(family: string): EgressRoute[] {
    const pinned = this.routes.filter((r) => r.providers.includes(family));
    if (pinned.length > 0) return pinned;
    const open = this.routes.filter((r) => r.providers.length === 0);
    return open.length > 0 ? open : [...this.routes];
  }

  /** A reply of `family`'s servers says `route` is blocked: pause it for that family. Returns the pause. */
  blocked(route: string, family: string, reason: string): RoutePause {
    const key = `${route}\u0000${family}`;
    const now = this.options.now();
    const previous = this.pauses.get(key);
    this.blockCounts.set(key, (this.blockCounts.get(key) ?? 0) + 1);
    // Recipients already on their way by the route come back blocked too: one block, not many.
    if (previous && previous.until > now) return previous;
    const strikes = (previous?.strikes ?? 0) + 1;
    const first = this.options.firstPauseMs ?? DEFAULT_FIRST_PAUSE_MS;
    const pauseMs = Math.min(this.options.maxPauseMs ?? DEFAULT_MAX_PAUSE_MS, first * 2 ** (strikes - 1));
    const pause: RoutePause = { route, family, until: Math.max(previous?.until ?? 0, now + pauseMs), strikes, reason };
    this.pauses.set(key, pause);
    return pause;
  }

  /** An ordinary answer of `family`'s servers through `route`: its strikes are forgotten. */
  worked(route: string, family: string): void {
    const key = `${route}\u0000${family}`;
    const pause = this.pauses.get(key);
    if (pause && pause.until <= this.options.now()) this.pauses.delete(key);
  }

  isPaused(route: string, family: string): boolean {
    const pause = this.pauses.get(`${route}\u0000${family}`);
    return pause !== undefined && pause.until > this.options.now();
  }

  /**
   * The route for work of a family, among those not paused; or when the first comes back.
   * `key` (the recipient's domain) picks the same route every time while the healthy routes
   * stay the same: a greylisted address is rechecked from the address that was greylisted
   * (greylisting remembers the client IP, RFC 6647 §2.1), and one domain's MX hosts see one
   * client, not all of them.
   */
  pick(family: string, key: string): RoutePick {
    const candidates = this.candidates(family);
    const healthy = candidates.filter((r) => !this.isPaused(r.name, family));
    if (healthy.length === 0) {
      const retryAt = Math.min(...candidates.map((r) => this.pauses.get(`${r.name}\u0000${family}`)?.until ?? this.options.now()));
      return { kind: 'all_paused', retryAt };
    }
    return { kind: 'route', route: healthy[stableIndex(key, healthy.length)] as EgressRoute };
  }

  /** Blocks seen so far per route and family. */
  blocks(): Array<{ route: string; family: string; count: number }> {
    return [...this.blockCounts].map(([key, count]) => {
      const [route = '', family = ''] = key.split('\u0000');
      return { route, family, count };
    });
  }

  /** Pauses in force now, for /metrics and `presend doctor`. */
  paused(): RoutePause[] {
    const now = this.options.now();
    return [...this.pauses.values()].filter((p) => p.until > now);
  }
}

/** What /metrics shows of the pool (routed-dispatcher.ts fills it; declared here, below the dispatchers, so the engine's ports can name it). */
export interface EgressStats {
  probes: Array<{ route: string; count: number }>;
  blocks: Array<{ route: string; family: string; count: number }>;
  paused: RoutePause[];
}
