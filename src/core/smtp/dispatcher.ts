/**
 * Routes one recipient over its domain's MX hosts in preference order (RFC 5321 §5.1): a host
 * that cannot be used (refused, no banner, blocked at connect, all addresses private) hands
 * the recipient to the next one. Host queues are shared by every domain that uses the host,
 * so a batch of one provider's domains rides the same sessions.
 */
import { systemClock, type SessionLimiter } from '../ports.js';
import { mayProbeAddress, type PrivateMxAllowance } from '../dns/address-safety.js';
import type { HostAddresses, MxHost } from '../dns/mail-hosts.js';
import type { HostLearning } from './host-profile.js';
import { HostQueue, type HostOutcome, type HostQueueSettings, type HostResult, type ProbeTarget } from './host-queue.js';
import type { SessionFailure, SessionFailureKind } from './session.js';

export type ProbeOutcome = (
  | HostOutcome
  | { kind: 'private_mx_refused' }
  | { kind: 'mx_unresolvable'; detail: string }
  | { kind: 'mx_dns_failure'; failure: 'servfail' | 'timeout' | 'error'; detail: string }
) & { host: string | null; attempts: number };

export interface DispatcherSettings extends HostQueueSettings {
  allowPrivateMx: PrivateMxAllowance;
  /** How long a host that failed to open stays skipped. */
  hostDownMs: number;
}

// Which failure explains the outcome best when every MX host failed: a policy answer says
// more than a timeout, which says more than a refused connection.
const FAILURE_WEIGHT: Record<SessionFailureKind, number> = {
  rejected: 7,
  temporary: 6,
  protocol: 5,
  dropped: 4,
  timeout: 3,
  tls: 2,
  proxy: 2,
  refused: 1,
};

function heavier(a: SessionFailure | null, b: SessionFailure): SessionFailure {
  return a && FAILURE_WEIGHT[a.kind] >= FAILURE_WEIGHT[b.kind] ? a : b;
}

const ADDRESS_MEMO_MS = 10_000;

interface AddressMemo {
  value: Promise<HostAddresses>;
  until: number;
  /** The answer once it is in, for the synchronous fast path. */
  resolved: HostAddresses | undefined;
  /** Its addresses a probe may connect to (see usable()), once asked for. */
  usable?: readonly string[];
}
const MEMO_MAX = 10_000;

/** Drops expired entries once a memo grows large (entries carry `until`). */
function prune(map: Map<string, { until: number }>, now: number): void {
  if (map.size < MEMO_MAX) return;
  for (const [key, entry] of map) if (entry.until <= now) map.delete(key);
  if (map.size >= MEMO_MAX) map.clear();
}

export class MxDispatcher {
  private readonly queues = new Map<string, HostQueue>();
  private readonly down = new Map<string, { until: number; failure: SessionFailure }>();
  private readonly addressMemo = new Map<string, AddressMemo>();
  private closed = false;
  private readonly now: () => number;

  constructor(
    private readonly settings: DispatcherSettings,
    private readonly limiter: SessionLimiter,
    private readonly addressesOf: (host: string) => Promise<HostAddresses>,
    /** What is learnt about each host's defences, shared by its queues over time. */
    private readonly learning?: HostLearning,
  ) {
    this.now = settings.session.now ?? (() => systemClock.now().getTime());
  }

  probe(target: ProbeTarget, hosts: readonly MxHost[], signal?: AbortSignal): Promise<ProbeOutcome> {
    // Fast path for the common case (the preferred host is up and already resolved): no
    // async frame per recipient, which matters when a batch brings thousands of them.
    const first = hosts[0];
    const queue = first && !this.closed && !signal?.aborted ? this.readyQueue(first.name) : null;
    if (!first || !queue) return this.probeFrom(target, hosts, signal, 0, 0, null);
    return queue.submit(target, signal).then((result) =>
      result.kind === 'final'
        ? { host: first.name, attempts: result.attempts, ...result.outcome }
        : this.probeFrom(target, hosts, signal, 1, result.attempts, { failure: result.failure, host: first.name }),
    );
  }

  /**
   * probe() for many recipients of one MX set, with a callback instead of a promise: returns
   * the function that sends one. On the fast path a recipient costs neither a promise nor a
   * closure of its own (a batch sends thousands); `onOutcome` gets the target it was sent with.
   */
  probeEach<T extends ProbeTarget>(hosts: readonly MxHost[], onOutcome: (outcome: ProbeOutcome, target: T) => void): (target: T) => void {
    const viaFailover = (target: T): void => void this.probeFrom(target, hosts, undefined, 0, 0, null).then((outcome) => onOutcome(outcome, target));
    const first = hosts[0];
    if (!first) return viaFailover;
    const settled = (result: HostResult, queued: ProbeTarget): void => {
      const target = queued as T; // the queue hands back the target it was given below
      // Spread last: V8 copies `{ ...outcome, host }` about 30 times slower than `{ host, ...outcome }`.
      if (result.kind === 'final') onOutcome({ host: first.name, attempts: result.attempts, ...result.outcome }, target);
      else void this.probeFrom(target, hosts, undefined, 1, result.attempts, { failure: result.failure, host: first.name }).then((outcome) => onOutcome(outcome, target));
    };
    return (target) => {
      const queue = this.closed ? null : this.readyQueue(first.name);
      if (queue) queue.enqueue(target, settled);
      else viaFailover(target);
    };
  }

  /** The queue of a host that is not down and whose usable addresses are already known. */
  private readyQueue(host: string): HostQueue | null {
    const now = this.now();
    const down = this.down.get(host);
    if (down && down.until > now) return null;
    const known = this.addressMemo.get(host);
    const resolved = known && known.until > now ? known.resolved : undefined;
    if (!known || !resolved?.ok) return null;
    // Filtered once per answer, not once per recipient.
    known.usable ??= this.usable(resolved.addresses);
    return known.usable.length > 0 ? this.queueFor(host, known.usable) : null;
  }

  private usable(addresses: readonly string[]): readonly string[] {
    // Refused before any connection: see dns/address-safety.ts.
    return this.settings.allowPrivateMx === true ? addresses : addresses.filter((ip) => mayProbeAddress(ip, this.settings.allowPrivateMx));
  }

  private async probeFrom(
    target: ProbeTarget,
    hosts: readonly MxHost[],
    signal: AbortSignal | undefined,
    start: number,
    attemptsSoFar: number,
    failed: { failure: SessionFailure; host: string } | null,
  ): Promise<ProbeOutcome> {
    let attempts = attemptsSoFar;
    let failure: SessionFailure | null = failed?.failure ?? null;
    let failedHost: string | null = failed?.host ?? null;
    let privateRefused = false;
    let dnsProblem: Exclude<HostAddresses, { ok: true }> | null = null;
    // Addresses this probe already failed on: many MX names on one address (a farm of
    // thousands of records leading to one tarpit) cost one attempt, not one per name.
    const failedAddresses = new Set<string>();
    for (const mx of hosts.slice(0, start)) {
      const resolved = await this.hostAddresses(mx.name);
      if (resolved.ok) for (const ip of resolved.addresses) failedAddresses.add(ip);
    }
    for (const mx of hosts.slice(start)) {
      if (this.closed || signal?.aborted) return { kind: 'aborted', host: null, attempts };
      const down = this.down.get(mx.name);
      if (down && down.until > this.now()) {
        target.evidence?.note(`${mx.name}: skipped, it could not be used a moment ago (${down.failure.detail})`);
        failure = heavier(failure, down.failure);
        failedHost = mx.name;
        continue;
      }
      const resolved = await this.hostAddresses(mx.name);
      if (!resolved.ok) {
        target.evidence?.note(`${mx.name}: its address could not be resolved (${resolved.failure})`);
        dnsProblem = resolved;
        continue;
      }
      const usable = this.usable(resolved.addresses);
      if (usable.length === 0) {
        target.evidence?.note(`${mx.name}: every address of it is private (${resolved.addresses.slice(0, 3).join(', ')}): not probed`);
        privateRefused = true;
        continue;
      }
      if (usable.every((ip) => failedAddresses.has(ip))) continue;
      const result = await this.queueFor(mx.name, usable).submit(target, signal);
      attempts += result.attempts;
      if (result.kind === 'final') return { host: mx.name, attempts, ...result.outcome };
      for (const ip of usable) failedAddresses.add(ip);
      failure = heavier(failure, result.failure);
      failedHost = mx.name;
    }
    if (failure) return { kind: 'failure', failure, host: failedHost, attempts };
    if (privateRefused) return { kind: 'private_mx_refused', host: null, attempts };
    if (dnsProblem && dnsProblem.failure !== 'unresolvable') {
      return { kind: 'mx_dns_failure', failure: dnsProblem.failure, detail: dnsProblem.detail, host: null, attempts };
    }
    return { kind: 'mx_unresolvable', detail: dnsProblem?.detail ?? 'no MX host', host: null, attempts };
  }

  /** Opens sessions to a domain's preferred MX host ahead of its recipients (see HostQueue.warm). */
  async warm(hosts: readonly MxHost[], expectedRecipients: number): Promise<void> {
    const mx = hosts[0];
    if (!mx || this.closed) return;
    const down = this.down.get(mx.name);
    if (down && down.until > this.now()) return;
    const resolved = await this.hostAddresses(mx.name);
    if (!resolved.ok || this.closed) return;
    const usable = this.usable(resolved.addresses);
    if (usable.length > 0) this.queueFor(mx.name, usable).warm(expectedRecipients);
  }

  /**
   * Host addresses come from the FactsCache; the promise is also kept here briefly so the
   * thousands of recipients of one batch do not each make a cache round trip.
   */
  private hostAddresses(host: string): Promise<HostAddresses> {
    const now = this.now();
    const known = this.addressMemo.get(host);
    if (known && known.until > now) return known.value;
    const value = this.addressesOf(host);
    prune(this.addressMemo, now);
    const entry: AddressMemo = { value, until: now + ADDRESS_MEMO_MS, resolved: undefined };
    this.addressMemo.set(host, entry);
    void value.then((resolved) => {
      entry.resolved = resolved;
    });
    return value;
  }

  private queueFor(host: string, addresses: readonly string[]): HostQueue {
    let queue = this.queues.get(host);
    if (!queue) {
      const created: HostQueue = new HostQueue(
        host,
        addresses,
        this.settings,
        this.limiter,
        (failure) => {
          const now = this.now();
          prune(this.down, now);
          this.down.set(host, { until: now + this.settings.hostDownMs, failure });
        },
        // An idle queue is dropped so a long-running worker does not keep one per host ever
        // seen; a late submit to it still works, and the limiter still bounds sessions.
        () => {
          if (this.queues.get(host) === created) this.queues.delete(host);
        },
        this.learning,
      );
      queue = created;
      this.queues.set(host, queue);
    }
    return queue;
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.allSettled([...this.queues.values()].map((q) => q.close()));
  }
}
