/**
 * The work queue of one MX host. Recipients of any domain routed to this host wait here;
 * up to `maxSessions` sessions (each holding a SessionLimiter slot) take balanced chunks,
 * run them as one pipelined transaction, and stay open for the next chunk, lingering
 * briefly when the queue is empty. So one session serves many addresses, concurrent
 * sessions per host stay bounded, and a burst is split over the allowed sessions.
 */
import type { SessionLimiter } from '../ports.js';
import type { SmtpReply } from './reply.js';
import { ProbeSession, type SessionFailure, type SessionSettings } from './session.js';

export interface ProbeTarget {
  /** `local@domain`, local part as given, domain in A-label form. */
  recipient: string;
  needsUtf8: boolean;
  /** Catch-all probes jump the queue: accepted answers wait for them. */
  urgent?: boolean;
}

export type HostOutcome =
  | { kind: 'reply'; reply: SmtpReply }
  | { kind: 'mail_rejected'; reply: SmtpReply }
  | { kind: 'utf8_unsupported' }
  | { kind: 'failure'; failure: SessionFailure }
  | { kind: 'aborted' };

/** `failover`: the host could not be used at all; try the next MX. */
export type HostResult = { kind: 'final'; outcome: HostOutcome; attempts: number } | { kind: 'failover'; failure: SessionFailure; attempts: number };

export interface HostQueueSettings {
  session: Omit<SessionSettings, 'useStartTls'>;
  maxSessions: number;
  maxRcptsPerTransaction: number;
  maxTransactionsPerSession: number;
  /** How long an idle session waits for more work before QUIT. */
  sessionIdleMs: number;
  /** Sessions an address may be sent in before its failure is final. */
  maxAttempts: number;
}

/** Called with a recipient's result and the target it was enqueued with (one callback can serve many). */
export type HostResultListener = (result: HostResult, target: ProbeTarget) => void;

/** One recipient waiting for (or in) a transaction; settles once. A class, not closures: batches make thousands. */
class Entry {
  attempts = 0;
  settled = false;
  unlisten: (() => void) | null = null;

  constructor(
    readonly target: ProbeTarget,
    private readonly resolve: HostResultListener,
  ) {}

  settle(result: HostResult): void {
    if (this.settled) return;
    this.settled = true;
    this.unlisten?.();
    this.resolve(result, this.target);
  }
}

const is2xx = (reply: SmtpReply): boolean => reply.code >= 200 && reply.code < 300;
// RFC 5321 §4.5.3.1.10: 452 "too many recipients" asks for the rest in a later transaction.
const isTooManyRecipients = (reply: SmtpReply): boolean =>
  reply.code === 452 && (reply.enhanced === '4.5.3' || /too many recipients/i.test(reply.text));

const MIN_RECIPIENTS_PER_SESSION = 4;

export class HostQueue {
  private pending: Entry[] = [];
  private sessions = 0;
  private busy = 0;
  private target: number;
  private rcptLimit: number;
  private tlsBroken = false;
  private closing = false;
  private readonly idle: Array<() => void> = [];
  private readonly workers = new Set<Promise<void>>();
  private readonly live = new Set<ProbeSession>();

  constructor(
    readonly host: string,
    private readonly addresses: readonly string[],
    private readonly settings: HostQueueSettings,
    private readonly limiter: SessionLimiter,
    private readonly onHostDown: (failure: SessionFailure) => void,
    private readonly onIdle?: () => void,
  ) {
    this.target = settings.maxSessions;
    this.rcptLimit = settings.maxRcptsPerTransaction;
  }

  submit(target: ProbeTarget, signal?: AbortSignal): Promise<HostResult> {
    return new Promise((resolve) => this.enqueue(target, resolve, signal));
  }

  /** Like submit(), with a callback instead of a promise (batches enqueue thousands). */
  enqueue(target: ProbeTarget, onResult: HostResultListener, signal?: AbortSignal): void {
    const entry = new Entry(target, onResult);
    if (this.closing || signal?.aborted) return entry.settle({ kind: 'final', outcome: { kind: 'aborted' }, attempts: 0 });
    if (signal) {
      const onAbort = (): void => {
        const at = this.pending.indexOf(entry);
        if (at >= 0) this.pending.splice(at, 1);
        entry.settle({ kind: 'final', outcome: { kind: 'aborted' }, attempts: entry.attempts });
      };
      signal.addEventListener('abort', onAbort, { once: true });
      entry.unlisten = () => signal.removeEventListener('abort', onAbort);
    }
    if (target.urgent) this.pending.unshift(entry);
    else this.pending.push(entry);
    this.pump();
  }

  private pump(): void {
    if (this.closing || this.pending.length === 0) return;
    if (this.idle.length > 0) for (const wake of this.idle.splice(0)) wake();
    // A further session only pays off for a few recipients more: a single check (and its
    // catch-all probe) rides one session, a batch of a domain gets the full allowance.
    const wanted = Math.min(this.target, Math.ceil(this.pending.length / MIN_RECIPIENTS_PER_SESSION));
    if (this.sessions < wanted) this.spawn(false);
  }

  /**
   * Opens sessions for recipients a batch is about to submit, so the wait for banner and
   * EHLO overlaps the engine's own per-address work instead of following it.
   */
  warm(expectedRecipients: number): void {
    if (this.closing) return;
    const wanted = Math.min(this.target, Math.ceil(expectedRecipients / MIN_RECIPIENTS_PER_SESSION));
    while (this.sessions < wanted) this.spawn(true);
  }

  private spawn(warm: boolean): void {
    this.sessions++;
    const worker = this.work(warm).finally(() => {
      this.workers.delete(worker);
    });
    this.workers.add(worker);
  }

  /** A balanced chunk: the pending work split over the sessions not already busy. */
  private take(): Entry[] {
    const free = Math.max(1, this.sessions - this.busy);
    const size = Math.min(this.rcptLimit, Math.ceil(this.pending.length / free));
    return this.pending.splice(0, size);
  }

  private async work(warm: boolean): Promise<void> {
    let release: (() => Promise<void> | void) | undefined;
    try {
      release = await this.limiter.acquire(this.host);
      let opened = null;
      for (let tries = 0; tries < 2 && (warm || this.pending.length > 0) && !this.closing; tries++) {
        opened = await ProbeSession.open(this.host, this.addresses, { ...this.settings.session, useStartTls: !this.tlsBroken });
        // Opportunistic TLS (RFC 3207): a broken handshake is retried once in plaintext.
        if (!opened.ok && opened.failure.kind === 'tls' && !this.tlsBroken) {
          this.tlsBroken = true;
          continue;
        }
        break;
      }
      if (opened && !opened.ok) this.openFailed(opened.failure);
      else if (opened?.ok) await this.serve(opened.session);
    } finally {
      this.sessions--;
      await release?.();
      this.pump();
      if (this.sessions === 0 && this.pending.length === 0) {
        // Quiet again: the next burst may try the full allowance, and the queue can go.
        this.target = this.settings.maxSessions;
        this.onIdle?.();
      }
    }
  }

  private openFailed(failure: SessionFailure): void {
    if (this.sessions > 1) {
      // Another session of this host is up or on its way: the host is merely busier than
      // our limit (421 too many connections). Serve it with fewer sessions.
      this.target = Math.max(1, this.target - 1);
      return;
    }
    // RFC 5321 §5.1: only a host that cannot be reached passes the mail to the next MX. A host
    // that answers — 554 at the banner, garbage, a dropped EHLO — has spoken for the domain.
    const unreachable =
      failure.kind === 'refused' || failure.kind === 'proxy' || (failure.kind === 'timeout' && (failure.step === 'connect' || failure.step === 'banner'));
    if (unreachable) this.onHostDown(failure);
    for (const entry of this.pending.splice(0)) {
      entry.settle(
        unreachable
          ? { kind: 'failover', failure, attempts: entry.attempts + 1 }
          : { kind: 'final', outcome: { kind: 'failure', failure }, attempts: entry.attempts + 1 },
      );
    }
  }

  private async serve(session: ProbeSession): Promise<void> {
    this.live.add(session);
    let transactions = 0;
    try {
      while (transactions < this.settings.maxTransactionsPerSession) {
        if (this.closing) break;
        if (!session.usable) {
          // A handshake that used up the session's lifetime: the host is too slow to probe.
          if (transactions === 0) this.openFailed({ kind: 'timeout', step: 'banner', reply: null, detail: 'handshake used the whole session deadline' });
          break;
        }
        const batch = this.take();
        if (batch.length === 0) {
          if (!(await this.waitForWork(Math.min(this.settings.sessionIdleMs, session.remainingMs - this.settings.session.stepTimeoutMs)))) break;
          continue;
        }
        this.busy++;
        let broken: boolean;
        try {
          broken = await this.run(session, batch);
        } finally {
          this.busy--;
        }
        transactions++;
        if (broken) return;
      }
      await session.quit();
    } finally {
      this.live.delete(session);
      session.destroy();
    }
  }

  private waitForWork(ms: number): Promise<boolean> {
    if (ms <= 0 || this.closing) return Promise.resolve(false);
    return new Promise((resolve) => {
      const wake = (): void => {
        clearTimeout(timer);
        resolve(true);
      };
      const timer = setTimeout(() => {
        const at = this.idle.indexOf(wake);
        if (at >= 0) this.idle.splice(at, 1);
        resolve(false);
      }, ms);
      this.idle.push(wake);
    });
  }

  /** One transaction for a chunk; true when the session broke and must be dropped. */
  private async run(session: ProbeSession, batch: Entry[]): Promise<boolean> {
    const sendable: Entry[] = [];
    for (const entry of batch) {
      if (entry.settled) continue;
      // RFC 6531 §3.4: a UTF-8 local part cannot be sent to a server without SMTPUTF8.
      if (entry.target.needsUtf8 && !session.capabilities.smtputf8) {
        entry.settle({ kind: 'final', outcome: { kind: 'utf8_unsupported' }, attempts: entry.attempts + 1 });
      } else sendable.push(entry);
    }
    if (sendable.length === 0) return false;
    const utf8 = sendable.some((e) => e.target.needsUtf8);
    const result = await session.transaction(
      sendable.map((e) => e.target.recipient),
      utf8,
    );
    const retry: Entry[] = [];
    let answered = 0;
    sendable.forEach((entry, i) => {
      entry.attempts++;
      const reply = result.rcpt[i];
      if (result.mail && !is2xx(result.mail)) {
        entry.settle({ kind: 'final', outcome: { kind: 'mail_rejected', reply: result.mail }, attempts: entry.attempts });
      } else if (reply && !isTooManyRecipients(reply)) {
        answered++;
        entry.settle({ kind: 'final', outcome: { kind: 'reply', reply }, attempts: entry.attempts });
      } else if (entry.attempts >= this.settings.maxAttempts) {
        const failure = result.failure ?? { kind: 'temporary', step: 'rcpt', reply: reply ?? null, detail: 'recipient not answered' };
        entry.settle({ kind: 'final', outcome: { kind: 'failure', failure }, attempts: entry.attempts });
      } else retry.push(entry);
    });
    // Retries without a broken session mean "too many recipients": learn the server's limit.
    if (!result.failure && retry.length > 0 && answered > 0) this.rcptLimit = answered;
    this.pending.unshift(...retry);
    return result.failure !== null;
  }

  /** QUITs every session and settles what is still waiting as aborted. */
  async close(): Promise<void> {
    this.closing = true;
    for (const wake of this.idle.splice(0)) wake();
    for (const entry of this.pending.splice(0)) entry.settle({ kind: 'final', outcome: { kind: 'aborted' }, attempts: entry.attempts });
    await Promise.allSettled([...this.workers]);
  }
}
