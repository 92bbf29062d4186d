/**
 * The lease keeper: the one part of a process that renews leases. It tracks every work this
 * process holds (batch items, checks, list fills and imports, feedback imports), renews all their
 * leases together every `renewFraction` of the lease, and tells each work's owner when its lease
 * was lost (another node took it over after a stall, or ended it): the work's AbortSignal aborts
 * and its `onLost` is called, so the owner stops and writes nothing more for it. It also looks,
 * at the same pace, for work whose lease lapsed (its process died) and hands it to whoever
 * registered to take that kind over — as BullMQ's LockManager keeps its worker's job locks.
 *
 * The store side is one primitive (src/store/roles/leases.ts); times come from an injected clock
 * and timer, so tests move a lease past its end without waiting.
 */
import { randomUUID } from 'node:crypto';
import type { LeasesRole } from '../../store/roles/leases.js';
import type { LeaseId, LeaseKind, TakeableKind, Taken } from '../../store/roles/lease-kinds.js';
import type { LeaseGrant } from '../../store/roles/lease-grant.js';
import type { Logger } from '../../logger.js';

/** The keeper's clock and its one repeating timer. */
export interface LeaseClock {
  now(): Date;
  /** Calls `tick` every `ms` until the returned function is called. */
  every(ms: number, tick: () => void): () => void;
}

export function systemClock(now: () => Date = () => new Date()): LeaseClock {
  return {
    now,
    every(ms, tick) {
      const timer = setInterval(tick, ms);
      // Leases never keep a process alive: its owner's own work does.
      timer.unref();
      return () => clearInterval(timer);
    },
  };
}

/** Why a held work's signal aborted. */
export class LeaseLost extends Error {
  constructor(
    readonly kind: LeaseKind,
    readonly id: string | number,
  ) {
    super(`the lease of ${kind} ${id} was lost: another node took it over or ended it`);
    this.name = 'LeaseLost';
  }
}

/** Who takes over lapsed work of one kind: how much it has room for now, and what it does with each. */
export interface Takeover<K extends TakeableKind> {
  room(): number;
  /** Runs the work taken over; it is leased to this keeper's owner, and should `hold` it at once. */
  run(taken: Taken<K>): void;
}

export interface LeaseKeeperOptions {
  leases: LeasesRole;
  /** How long a lease lasts past each renewal (config.leaseMs). */
  leaseMs: number;
  /** This process's name in every lease it holds; a fresh `keeper#uuid` otherwise. */
  owner?: string;
  /** Renewals happen every this fraction of the lease (default ⅓: two renewals may fail before a lease lapses). */
  renewFraction?: number;
  clock?: LeaseClock;
  log: Logger;
}

interface Held {
  readonly abort: AbortController;
  readonly onLost: ((lost: LeaseLost) => void) | undefined;
}

export class LeaseKeeper {
  readonly owner: string;
  private readonly clock: LeaseClock;
  private readonly held = new Map<LeaseKind, Map<string, { id: string | number; held: Held }>>();
  private readonly takeovers: Array<{ kind: TakeableKind; takeover: Takeover<TakeableKind> }> = [];
  private readonly ended = new Set<LeaseKind>();
  private cancel: (() => void) | null = null;
  private ticking: Promise<void> | null = null;

  constructor(private readonly o: LeaseKeeperOptions) {
    this.owner = o.owner ?? `keeper#${randomUUID()}`;
    this.clock = o.clock ?? systemClock();
  }

  /** How often the keeper renews (and looks for lapsed work). */
  get renewEveryMs(): number {
    return Math.max(10, Math.floor(this.o.leaseMs * (this.o.renewFraction ?? 1 / 3)));
  }

  /** A lease for work this process is about to create (a check, a list, …), from now. */
  grant(): LeaseGrant {
    return { owner: this.owner, until: this.until() };
  }

  /** When a lease renewed now ends. */
  until(): Date {
    return new Date(this.clock.now().getTime() + this.o.leaseMs);
  }

  /**
   * Keeps the lease of a work this process holds until it is dropped, released or lost. The
   * signal aborts (with a `LeaseLost`) when a renewal finds the lease gone; `onLost` is told too.
   */
  hold<K extends LeaseKind>(kind: K, id: LeaseId<K>, onLost?: (lost: LeaseLost) => void): AbortSignal {
    const abort = new AbortController();
    this.kindMap(kind).set(String(id), { id, held: { abort, onLost } });
    return abort.signal;
  }

  /** Whether this process still holds the work's lease (a renewal has not found it lost). */
  holds<K extends LeaseKind>(kind: K, id: LeaseId<K>): boolean {
    return this.held.get(kind)?.has(String(id)) ?? false;
  }

  /** The works are done (or their end is being written): their leases are not renewed any more. */
  drop<K extends LeaseKind>(kind: K, ids: ReadonlyArray<LeaseId<K>>): void {
    const map = this.held.get(kind);
    for (const id of ids) map?.delete(String(id));
  }

  /** Hands the works back (shutdown): the next taker has them at once. */
  async release<K extends LeaseKind>(kind: K, ids: ReadonlyArray<LeaseId<K>>): Promise<void> {
    this.drop(kind, ids);
    await this.o.leases.release(kind, this.owner, ids, this.clock.now());
  }

  /** Lets the works' leases run out at `at` instead of renewing them (a retry after a short back-off, by whoever claims them then). */
  async lapseAt<K extends LeaseKind>(kind: K, ids: ReadonlyArray<LeaseId<K>>, at: Date): Promise<void> {
    this.drop(kind, ids);
    await this.o.leases.renew(kind, this.owner, ids, at);
  }

  /** At every renewal, lapsed work of `kind` is taken over (or ended, when nobody may take it) and handed to `takeover`. */
  takeOver<K extends TakeableKind>(kind: K, takeover: Takeover<K>): void {
    this.takeovers.push({ kind, takeover: takeover as unknown as Takeover<TakeableKind> });
  }

  /** At every renewal, lapsed work of `kind` that nobody may take over is ended (a feedback import whose process died: failed). */
  endLapsed(kind: LeaseKind): void {
    this.ended.add(kind);
  }

  /** Renews now and every `renewEveryMs` until `stop()`. */
  start(): void {
    if (this.cancel) return;
    this.cancel = this.clock.every(this.renewEveryMs, () => void this.tick());
    void this.tick();
  }

  /** Stops renewing; what is held lapses unless released. Waits for a renewal in progress. */
  async stop(): Promise<void> {
    this.cancel?.();
    this.cancel = null;
    await this.ticking;
  }

  /** One round: renew every held lease, tell the owners of the lost ones, then take over or end lapsed work. Rounds never overlap. */
  tick(): Promise<void> {
    this.ticking ??= this.round().finally(() => {
      this.ticking = null;
    });
    return this.ticking;
  }

  private async round(): Promise<void> {
    for (const kind of [...this.held.keys()]) await this.renew(kind);
    for (const { kind, takeover } of this.takeovers) await this.take(kind, takeover);
    for (const kind of this.ended) {
      const ended = await this.o.leases.endLapsed(kind, this.clock.now()).catch((err: unknown) => {
        this.o.log.warn({ err, kind }, 'could not end lapsed work; the next round tries again');
        return 0;
      });
      if (ended > 0) this.o.log.warn({ kind, ended }, 'work whose process stopped was marked failed (its lease lapsed)');
    }
  }

  private async renew(kind: LeaseKind): Promise<void> {
    const map = this.kindMap(kind);
    if (map.size === 0) return;
    const asked = [...map.values()];
    let lost: Array<string | number>;
    try {
      lost = await this.o.leases.renew(kind, this.owner, asked.map((h) => h.id) as Array<LeaseId<typeof kind>>, this.until());
    } catch (err) {
      // The next round retries; a lease outlasts two failed renewals at the default fraction.
      this.o.log.warn({ err, kind, held: asked.length }, 'could not renew leases');
      return;
    }
    if (lost.length === 0) return;
    const told: Array<string | number> = [];
    for (const id of lost) {
      const entry = map.get(String(id));
      // Dropped or held again while the renewal ran: not this renewal's to report.
      if (!entry || !asked.includes(entry)) continue;
      map.delete(String(id));
      const reason = new LeaseLost(kind, id);
      entry.held.abort.abort(reason);
      entry.held.onLost?.(reason);
      told.push(id);
    }
    if (told.length > 0) this.o.log.warn({ kind, lost: told.length, ids: told.slice(0, 20) }, 'leases lost: another node took this work over or ended it; this process stops it');
  }

  private async take(kind: TakeableKind, takeover: Takeover<TakeableKind>): Promise<void> {
    const limit = takeover.room();
    if (limit <= 0) return;
    const now = this.clock.now();
    try {
      const taken = await this.o.leases.takeLapsed(kind, { owner: this.owner, now, until: this.until(), limit });
      for (const work of taken) takeover.run(work);
    } catch (err) {
      this.o.log.warn({ err, kind }, 'could not look for lapsed work to take over; the next round tries again');
    }
  }

  private kindMap(kind: LeaseKind): Map<string, { id: string | number; held: Held }> {
    let map = this.held.get(kind);
    if (!map) {
      map = new Map();
      this.held.set(kind, map);
    }
    return map;
  }
}

/** Runs `work` with a keeper of its own, started before and stopped after (a CLI command that holds a lease while it runs). */
export async function withLeaseKeeper<T>(options: LeaseKeeperOptions, work: (keeper: LeaseKeeper) => Promise<T>): Promise<T> {
  const keeper = new LeaseKeeper(options);
  keeper.start();
  try {
    return await work(keeper);
  } finally {
    await keeper.stop();
  }
}
