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
 * a reply says about a mailbox: only replies about us move it. The clock is injected; the pauses
 * are kept by a RoutePauses port (ports.ts): this process's memory by default, a table on
 * PostgreSQL, so every worker sees the pauses any of them set. Picks read the kept pauses at most
 * every `refreshMs`; a block this process meets is known to it at once.
 */
import type { RoutePauses } from '../ports.js';
import type { EgressRoute } from './egress-routes.js';
import { createMemoryRoutePauses } from './memory-route-pauses.js';
import type { RoutePause } from './route-pause.js';

export interface RouteHealthOptions {
  now: () => number;
  /** First pause after a block (default 10 minutes). */
  firstPauseMs?: number;
  /** Longest pause (default 6 hours: blocklist delistings and provider throttles clear in hours). */
  maxPauseMs?: number;
  /** Where the pauses are kept; default: this process's memory. */
  pauses?: RoutePauses;
  /** How long one read of the kept pauses serves picks (default 1 s): other workers' blocks are seen within it. */
  refreshMs?: number;
}

export type RoutePick = { kind: 'route'; route: EgressRoute } | { kind: 'all_paused'; retryAt: number };

const DEFAULT_FIRST_PAUSE_MS = 10 * 60 * 1000;
const DEFAULT_MAX_PAUSE_MS = 6 * 60 * 60 * 1000;
const DEFAULT_REFRESH_MS = 1000;

/** FNV-1a of the text, then murmur3's finalizer so texts that differ in their last letter land far apart. */
function hash32(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  hash ^= hash >>> 16;
  hash = Math.imul(hash, 0x85ebca6b);
  hash ^= hash >>> 13;
  hash = Math.imul(hash, 0xc2b2ae35);
  return (hash ^ (hash >>> 16)) >>> 0;
}

/**
 * The route of `key` among `routes` by rendezvous hashing (highest score wins): the same key
 * keeps its route whatever happens to the other routes — another route paused or let in again
 * moves only the keys of that route. Every worker with the same route names picks the same.
 */
function rendezvous(key: string, routes: readonly EgressRoute[]): EgressRoute | undefined {
  let best: EgressRoute | undefined;
  let bestScore = -1;
  for (const route of routes) {
    const score = hash32(`${key}\u0000${route.name}`);
    if (score > bestScore) [best, bestScore] = [route, score];
  }
  return best;
}

const keyOf = (route: string, family: string): string => `${route}\u0000${family}`;

export class RouteHealth {
  /** The kept pauses as last read (lapsed ones too: their strikes count), and this process's blocks since. */
  private readonly known = new Map<string, RoutePause>();
  private readAt = Number.NEGATIVE_INFINITY;
  private reading: Promise<void> | null = null;
  private readonly store: RoutePauses;
  /** Blocks seen per route and family by this process (for /metrics). */
  private readonly blockCounts = new Map<string, number>();

  constructor(
    private readonly routes: readonly EgressRoute[],
    private readonly options: RouteHealthOptions,
  ) {
    if (routes.length === 0) throw new Error('RouteHealth needs at least one route');
    this.store = options.pauses ?? createMemoryRoutePauses();
  }

  /** The routes a family may use: those pinned to it, else those pinned to nothing. */
  candidates(family: string): EgressRoute[] {
    const pinned = this.routes.filter((r) => r.providers.includes(family));
    if (pinned.length > 0) return pinned;
    const open = this.routes.filter((r) => r.providers.length === 0);
    return open.length > 0 ? open : [...this.routes];
  }

  /** Reads the kept pauses again when the last read is older than refreshMs (one read at a time). */
  private async fresh(): Promise<void> {
    if (this.options.now() - this.readAt < (this.options.refreshMs ?? DEFAULT_REFRESH_MS)) return;
    this.reading ??= this.store
      .list()
      .then((records) => {
        this.known.clear();
        for (const record of records) this.known.set(keyOf(record.route, record.family), record);
        this.readAt = this.options.now();
      })
      .finally(() => {
        this.reading = null;
      });
    await this.reading;
  }

  /** A reply of `family`'s servers says `route` is blocked: pause it for that family. Returns the pause. */
  async blocked(route: string, family: string, reason: string): Promise<RoutePause> {
    const key = keyOf(route, family);
    this.blockCounts.set(key, (this.blockCounts.get(key) ?? 0) + 1);
    const now = this.options.now();
    const first = this.options.firstPauseMs ?? DEFAULT_FIRST_PAUSE_MS;
    const max = this.options.maxPauseMs ?? DEFAULT_MAX_PAUSE_MS;
    const kept = await this.store.update(route, family, (previous) => {
      // Recipients already on their way by the route (here or on another worker) come back blocked too: one block, not many.
      if (previous && previous.until > now) return previous;
      const strikes = (previous?.strikes ?? 0) + 1;
      const pauseMs = Math.min(max, first * 2 ** (strikes - 1));
      return { route, family, until: Math.max(previous?.until ?? 0, now + pauseMs), strikes, reason };
    });
    this.known.set(key, kept);
    return kept;
  }

  /** An ordinary answer of `family`'s servers through `route`: its strikes are forgotten. */
  async worked(route: string, family: string): Promise<void> {
    const key = keyOf(route, family);
    const pause = this.known.get(key);
    const now = this.options.now();
    if (!pause || pause.until > now) return;
    this.known.delete(key);
    await this.store.forgetLapsed(route, family, now);
  }

  isPaused(route: string, family: string): boolean {
    const pause = this.known.get(keyOf(route, family));
    return pause !== undefined && pause.until > this.options.now();
  }

  /**
   * The route for work of a family, among those not paused; or when the first comes back.
   * `key` (the recipient's domain) picks the same route every time while that route stays
   * healthy, on every worker: a greylisted address is rechecked from the address that was
   * greylisted (greylisting remembers the client IP, RFC 6647 §2.1), and one domain's MX hosts
   * see one client, not all of them.
   */
  async pick(family: string, key: string): Promise<RoutePick> {
    await this.fresh();
    const candidates = this.candidates(family);
    const healthy = candidates.filter((r) => !this.isPaused(r.name, family));
    const chosen = rendezvous(key, healthy);
    if (chosen) return { kind: 'route', route: chosen };
    const retryAt = Math.min(...candidates.map((r) => this.known.get(keyOf(r.name, family))?.until ?? this.options.now()));
    return { kind: 'all_paused', retryAt };
  }

  /** Blocks seen so far per route and family. */
  blocks(): Array<{ route: string; family: string; count: number }> {
    return [...this.blockCounts].map(([key, count]) => {
      const [route = '', family = ''] = key.split('\u0000');
      return { route, family, count };
    });
  }

  /** Pauses in force now as this process last read them, for /metrics. */
  paused(): RoutePause[] {
    const now = this.options.now();
    return [...this.known.values()].filter((p) => p.until > now);
  }
}
