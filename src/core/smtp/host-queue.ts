/**
 * The work queue of one MX host. Recipients of any domain routed to this host wait here;
 * up to `maxSessions` sessions (each holding a SessionLimiter slot) take chunks, run them as
 * pipelined transactions, and end before the host's error budget is spent. So one session
 * serves many addresses, concurrent sessions per host stay bounded, a burst is split over
 * the allowed sessions — and no session collects more errors than the server tolerates.
 *
 * docs/engine-sessions.md describes the design; in short:
 * - Each group is sized (group-plan.ts) so that the errors it is expected to bring fit the
 *   session's budget (host-profile.ts); a session whose budget is spent ends, and the next
 *   recipients go to a fresh session.
 * - A reply is trusted only once its group has ended in step (session.ts: the QUIT or EHLO
 *   that ends every group answered at its place). A group whose replies fell out of step gives
 *   its recipients back to the queue, and the host is asked one command at a time, one group
 *   per session, from then on.
 * - A 421, a dropped connection after errors, an error sleep or a throttling reply is never
 *   a verdict: the recipients not answered go back to the queue and are asked again in a new
 *   session (after a back-off when the host asked for one). Only a host that keeps refusing
 *   ends them as failures (TRANSIENT, with a retry window).
 */
import type { FactsCache, SessionLimiter } from '../ports.js';
import { systemClock } from '../ports.js';
import { BUDGET_SLACK, planGroup } from './group-plan.js';
import { FIRST_CONTACT_SESSION_RCPTS, FIRST_CONTACT_TRANSACTION_ERRORS, HostLearning, type HostProfile } from './host-profile.js';
import type { SmtpReply } from './reply.js';
import { ProbeSession, type SessionFailure, type SessionSettings, type TransactionResult } from './session.js';
import { hostSignalOf } from './throttle.js';
import { learnFromTransaction } from './transaction-lessons.js';
import { capsRecipientsPerMessage, countsErrorsPerSession, serverFamilyOf } from './server-family.js';
import { sessionCeiling, sessionsForPath } from './session-count.js';
import { attributeGroup, noteOpenFailure } from '../evidence/transcript.js';
import { Entry, afterCut, afterHostPause, afterRefusal, afterSilence, type HostResultListener, type HostResult, type ProbeTarget, type PutBackRules } from './put-back.js';

export type { HostOutcome, HostResult, HostResultListener, ProbeTarget } from './put-back.js';

export interface HostQueueSettings {
  session: Omit<SessionSettings, 'useStartTls' | 'strict'>;
  maxSessions: number;
  maxRcptsPerTransaction: number;
  maxTransactionsPerSession: number;
  /** How long an idle session waits for more work before QUIT. */
  sessionIdleMs: number;
  /** Sessions an address may be sent in when they time out or drop under it. */
  maxAttempts: number;
  /** Times an address may go back to the queue because the host refused, throttled or slowed us. Default 5. */
  maxRequeues?: number;
  /** Errors one session plans to collect at a host not known yet (host-profile.ts). Default 8. */
  errorBudget?: number;
  /** Errors one transaction plans to collect at a host not known yet; null: the session's budget alone. Default 3 (host-profile.ts). */
  transactionErrors?: number | null;
  /** Recipients one session carries at a host not known yet; null: unbounded. Default 20 (host-profile.ts). */
  sessionRcpts?: number | null;
  /** First wait after the host refused or throttled us; doubled each time up to maxBackoffMs. Defaults 1000 / 8000 ms. */
  backoffMs?: number;
  maxBackoffMs?: number;
  /**
   * How long the host may keep pausing an address it never answered about (throttling replies,
   * 421s at the greeting or asking for time) before the address ends `host_throttled`
   * (recheck_scheduled, never TRANSIENT). Default 3 minutes (PRESEND_HOST_THROTTLE_BOUND_MS).
   */
  hostThrottleBoundMs?: number;
}

/** After a group: the session goes on, is over (QUIT answered), should end (the host asked for a pause), or broke. */
type AfterGroup = 'open' | 'closed' | 'stop' | 'broken';

const is2xx = (reply: SmtpReply): boolean => reply.code >= 200 && reply.code < 300;
const MIN_RECIPIENTS_PER_SESSION = 4;
export const DEFAULT_ERROR_BUDGET = 8;
const DEFAULT_MAX_REQUEUES = 5;
/** A path this long (round trip, ms) leaves a QUIT on its way while the next session connects. */
const FAR_PATH_MS = 5;
export const DEFAULT_HOST_THROTTLE_BOUND_MS = 180_000;
const NO_CACHE: FactsCache = { get: () => Promise.resolve(undefined), set: () => Promise.resolve() };
/** A refusal naming recipient attempts (Haraka limit "Too many recipient attempts") caps recipients per connection. */
const PER_CONNECTION_RCPTS = /recipient attempts/i;

export class HostQueue {
  private pending: Entry[] = [];
  private sessions = 0;
  private busy = 0;
  private target: number;
  private tlsBroken = false;
  private closing = false;
  /** What opening a session costs here, in round trips (connect, greeting, EHLO, TLS): smoothed. */
  private setupRounds = 3;
  /** Sessions whose QUIT was sent and whose 221 is awaited: still open at the server. */
  private closingSessions = 0;
  /** The path's round trip (the EHLO's, or the connect's where the EHLO was held), smoothed; null until a session was opened. */
  private pathMs: number | null = null;
  private backoffStep = 0;
  private backoffUntil = 0;
  private wakeBackoff: (() => void) | null = null;
  private profile: HostProfile;
  private readonly ready: Promise<void>;
  private readonly now: () => number;
  private readonly idle: Array<() => void> = [];
  private readonly workers = new Set<Promise<void>>();
  private readonly live = new Set<ProbeSession>();
  private readonly learning: HostLearning;

  constructor(
    readonly host: string,
    private readonly addresses: readonly string[],
    private readonly settings: HostQueueSettings,
    private readonly limiter: SessionLimiter,
    private readonly onHostDown: (failure: SessionFailure) => void,
    private readonly onIdle?: () => void,
    learning?: HostLearning,
  ) {
    this.now = settings.session.now ?? (() => systemClock.now().getTime());
    this.learning =
      learning ??
      new HostLearning(
        NO_CACHE,
        {
          errorBudget: settings.errorBudget ?? DEFAULT_ERROR_BUDGET,
          transactionErrors: settings.transactionErrors === undefined ? FIRST_CONTACT_TRANSACTION_ERRORS : settings.transactionErrors,
          sessionRcpts: settings.sessionRcpts === undefined ? FIRST_CONTACT_SESSION_RCPTS : settings.sessionRcpts,
          sessions: settings.maxSessions,
          rcptLimit: settings.maxRcptsPerTransaction,
          transactions: settings.maxTransactionsPerSession,
        },
        0,
      );
    this.profile = this.learning.profile(host);
    this.target = Math.min(settings.maxSessions, this.profile.sessions);
    this.ready = this.learning.load(host).then((profile) => {
      this.profile = profile;
      this.target = Math.min(this.settings.maxSessions, profile.sessions);
    });
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
    const wanted = Math.min(this.wanted(), Math.ceil(this.pending.length / MIN_RECIPIENTS_PER_SESSION));
    while (this.sessions < wanted && this.serverHasRoom()) this.spawn(false);
  }

  /**
   * Opens sessions for recipients a batch is about to submit, so the wait for banner and
   * EHLO overlaps the engine's own per-address work instead of following it.
   */
  warm(expectedRecipients: number): void {
    if (this.closing) return;
    const wanted = Math.min(this.wanted(), Math.ceil(expectedRecipients / MIN_RECIPIENTS_PER_SESSION));
    while (this.sessions < wanted && this.serverHasRoom()) this.spawn(true);
  }

  private spawn(warm: boolean): void {
    this.sessions++;
    const worker = this.work(warm).finally(() => {
      this.workers.delete(worker);
    });
    this.workers.add(worker);
  }

  private async work(warm: boolean): Promise<void> {
    let release: (() => Promise<void> | void) | undefined;
    let farewell: Promise<unknown> | undefined;
    try {
      await this.ready;
      await this.backedOff();
      // What was learnt (or a back-off) may allow fewer sessions than were started.
      if (this.closing || this.sessions > this.wanted() || (!warm && this.pending.length === 0)) return;
      release = await this.limiter.acquire(this.host);
      let opened = null;
      for (let tries = 0; tries < 2 && (warm || this.pending.length > 0) && !this.closing; tries++) {
        const started = this.now();
        opened = await ProbeSession.open(this.host, this.addresses, {
          ...this.settings.session,
          useStartTls: !this.tlsBroken,
          strict: this.profile.strict,
          awaitSlowReplies: this.profile.slowEveryReply,
        });
        if (opened.ok) {
          const rounds = (this.now() - started) / Math.max(0.1, opened.session.roundTripMs);
          this.setupRounds = 0.7 * this.setupRounds + 0.3 * Math.min(rounds, 100);
          // The path's round trip: the EHLO's (a relay or proxy answers the TCP connect itself), or
          // the connect's where the EHLO was held (a penalised client: that delay is not the path).
          const session = opened.session;
          const path = session.greetedSlowly ? session.connectMs : Math.max(session.connectMs, session.roundTripMs);
          this.pathMs = this.pathMs === null ? path : 0.7 * this.pathMs + 0.3 * path;
        }
        // Opportunistic TLS (RFC 3207): a broken handshake is retried once in plaintext.
        if (!opened.ok && opened.failure.kind === 'tls' && !this.tlsBroken) {
          this.tlsBroken = true;
          continue;
        }
        break;
      }
      if (opened && !opened.ok) this.openFailed(opened.failure);
      else if (opened?.ok) {
        ({ farewell } = await this.serve(opened.session));
      }
    } finally {
      this.sessions--;
      if (farewell) this.closingSessions++;
      await release?.();
      this.pump();
      // The 221 is still awaited (bounded, session.quit()): the queue is not idle — and not
      // dropped by the dispatcher, whose close() would then miss it — before the socket is closed.
      await farewell;
      if (farewell) {
        this.closingSessions--;
        this.pump();
      }
      if (this.sessions === 0 && this.pending.length === 0) {
        // Quiet again: the next burst may try the host's full allowance, and the queue can go.
        this.target = Math.min(this.settings.maxSessions, this.profile.sessions);
        this.onIdle?.();
      }
    }
  }

  /** Sessions at once this host allows as known: the politeness cap, what it taught, the limit its MTA keeps (session-count.ts). */
  private allowed(): number {
    return Math.max(1, Math.min(this.target, this.profile.sessionCeiling));
  }

  /** Sessions at once worth having now: sized to the path (session-count.ts). */
  private wanted(): number {
    return sessionsForPath(this.pathMs ?? 0, this.profile.slowEveryReply, this.allowed());
  }

  /**
   * Whether one more session stays within what the host allows as the host counts: a session we
   * sent QUIT on is over for us (its slot is free at once) but open at the server until it has
   * read the QUIT — a round trip later on a far path.
   */
  private serverHasRoom(): boolean {
    // On a near path the server has read the QUIT before our next connection reaches it — unless
    // it holds every reply (a penalised client: the QUIT waits its turn like the rest).
    const lingering = (this.pathMs ?? 0) >= FAR_PATH_MS || this.profile.slowEveryReply ? this.closingSessions : 0;
    return this.sessions + lingering < this.allowed();
  }

  /** The host is busier than our sessions: one fewer at once than were open (or allowed) when it said so. */
  private fewerSessions(): void {
    this.target = Math.max(1, Math.min(this.allowed(), this.sessions) - 1);
  }

  /** Waits out a back-off the host asked for (a refusal or throttling); close() cuts it short. */
  private backedOff(): Promise<void> {
    const wait = this.backoffUntil - this.now();
    if (wait <= 0 || this.closing) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(done, wait);
      const previous = this.wakeBackoff;
      function done(): void {
        clearTimeout(timer);
        previous?.();
        resolve();
      }
      this.wakeBackoff = done;
    });
  }

  private backOff(): void {
    const first = this.settings.backoffMs ?? 1000;
    const ms = Math.min(this.settings.maxBackoffMs ?? 8000, first * 2 ** this.backoffStep);
    this.backoffStep++;
    this.backoffUntil = Math.max(this.backoffUntil, this.now() + ms);
  }

  private openFailed(failure: SessionFailure): void {
    noteOpenFailure(this.pending.map((entry) => entry.target), this.host, failure.detail);
    const refusedForNow = failure.kind === 'temporary' && (failure.step === 'banner' || failure.step === 'ehlo' || failure.step === 'helo');
    if (this.sessions > 1) {
      // Another session of this host is up or on its way: the host is merely busier than
      // our limit (421 too many connections). Serve it with fewer sessions from now on.
      this.fewerSessions();
      if (refusedForNow && this.profile.sessions > this.target) {
        this.profile.sessions = this.target;
        void this.learning.save(this.host);
      }
      return;
    }
    if (refusedForNow) {
      // 421 at the greeting (too many connections, or a rate limit): not about the recipients.
      // They wait for a back-off and a new session, unless the host has kept them waiting past
      // the bound (then they end host_throttled, recheck_scheduled).
      this.backOff();
      this.putBack(afterHostPause(this.pending.splice(0), this.rules(), failure.reply, failure.detail));
      return;
    }
    // RFC 5321 §5.1: only a host that cannot be reached passes the mail to the next MX. A host
    // that answers — 554 at the banner, garbage, a dropped EHLO — has spoken for the domain.
    const unreachable =
      failure.kind === 'refused' || failure.kind === 'proxy' || (failure.kind === 'timeout' && (failure.step === 'connect' || failure.step === 'banner'));
    if (unreachable) this.onHostDown(failure);
    for (const entry of this.pending.splice(0)) {
      entry.attempts++;
      if (unreachable) entry.settle({ kind: 'failover', failure, attempts: entry.attempts });
      else entry.end({ kind: 'failure', failure });
    }
  }

  /** Errors the session may still collect (budget plus the slack group-plan.ts allows). */
  private room(session: ProbeSession): number {
    return this.profile.errorBudget + BUDGET_SLACK - session.errors;
  }

  /**
   * Runs groups on the session until it should end. Returns the wait for QUIT's reply, if QUIT
   * was sent: the session is over for the host once QUIT is sent (a server ends it on reading
   * QUIT; the mail world's recorder counts it so), so the caller frees the session's slot for
   * the next session at once instead of after one more round trip.
   */
  private async serve(session: ProbeSession): Promise<{ farewell: Promise<unknown> | undefined }> {
    let farewell: Promise<unknown> | undefined;
    this.live.add(session);
    let after: AfterGroup = 'open';
    let transactions = 0;
    /** Recipients this session has carried (probes counted: a per-connection cap counts every RCPT). */
    let carried = 0;
    const maxTransactions = Math.min(this.settings.maxTransactionsPerSession, this.profile.transactions);
    this.readGreeting(session);
    // One group per session when groups cannot be checked by a repeated EHLO, or the host's replies once fell out of step.
    const oneGroup = session.strict || !session.canVerifyWithEhlo;
    try {
      while (after === 'open' && !this.closing && transactions < maxTransactions) {
        if (!session.usable) {
          // A handshake that used up the session's lifetime: the host is too slow to probe.
          if (transactions === 0) this.openFailed({ kind: 'timeout', step: 'banner', reply: null, detail: 'handshake used the whole session deadline' });
          break;
        }
        const room = this.room(session);
        if (transactions > 0 && room < 1) break; // budget spent: the next recipients get a fresh session
        const plan = this.take(session, carried);
        if (plan.batch.length === 0) {
          if (plan.roomAfter < 1 && this.pending.length > 0) break; // a fresh session serves them better
          if (!(await this.waitForWork(Math.min(this.settings.sessionIdleMs, session.remainingMs - this.settings.session.stepTimeoutMs)))) break;
          continue;
        }
        // QUIT rides the group when the session certainly ends with it; otherwise EHLO ends the
        // group (and checks it), and the session may serve more or linger for more work.
        const greetingsLeft = this.profile.greetings === null || session.greetings < this.profile.greetings;
        const final = oneGroup || !greetingsLeft || transactions + 1 >= maxTransactions || plan.roomAfter < 1 || (plan.rcptsLeft !== null && plan.rcptsLeft < 1);
        const before = carried;
        carried += plan.batch.length;
        this.busy++;
        try {
          after = await this.run(session, plan.batch, final, before);
        } finally {
          this.busy--;
        }
        transactions++;
      }
      // quit() writes QUIT before it returns its promise.
      if (after === 'open' || after === 'stop') farewell = session.quit();
      if (after !== 'broken') this.backoffStep = 0;
    } finally {
      this.live.delete(session);
      if (!farewell) session.destroy();
    }
    // Wrapped: an async function returning a promise would wait for it.
    return { farewell };
  }

  /** What the greeting's name of the MTA tells before anything is set off (server-family.ts). */
  private readGreeting(session: ProbeSession): void {
    const family = serverFamilyOf(session.greeting.text);
    // Sendmail (MAXHELOCOMMANDS 3) sleeps from the third greeting of a session.
    let changed = family === 'sendmail' && this.learning.greetingsLimited(this.host, 2);
    if (countsErrorsPerSession(family)) changed = this.learning.transactionErrorsLifted(this.host) || changed;
    if (capsRecipientsPerMessage(family)) changed = this.learning.sessionRcptsLifted(this.host) || changed;
    changed = this.learning.sessionCeilingKnown(this.host, sessionCeiling(family)) || changed;
    // The greeting itself held (EHLO answered far later than the path's round trip): every reply will be.
    if (session.greetedSlowly) changed = this.learning.everyReplySlow(this.host) || changed;
    if (changed) void this.learning.save(this.host);
  }

  /** A chunk for the next group (group-plan.ts decides its size). */
  private take(session: ProbeSession, carried: number): { batch: Entry[]; roomAfter: number; rcptsLeft: number | null } {
    let urgent = 0;
    while (urgent < this.pending.length && this.pending[urgent]?.target.urgent) urgent++;
    const profile = this.profile;
    const rcptsLeft = profile.sessionRcpts === null ? null : profile.sessionRcpts - carried;
    // At a host that holds every reply anyway, a refusal costs no more than an acceptance: the
    // session is filled to its recipient cap instead of ended early to dodge a slowdown.
    const slow = profile.slowEveryReply;
    const plan = planGroup({
      waiting: this.pending.length,
      urgent,
      freeSessions: this.sessions - this.busy,
      rcptLimit: Math.min(this.settings.maxRcptsPerTransaction, profile.rcptLimit),
      sessionRcptsLeft: rcptsLeft,
      errorBudget: slow ? Math.max(profile.errorBudget, profile.sessionRcpts ?? profile.rcptLimit) : profile.errorBudget,
      sessionErrors: session.errors,
      transactionErrors: slow ? null : profile.transactionErrors,
      estimate: this.learning.refusals(this.host),
      transactionsDone: session.transactionsDone,
      setupRounds: this.setupRounds,
    });
    return { batch: this.pending.splice(0, plan.size), roomAfter: plan.roomAfter, rcptsLeft: rcptsLeft === null ? null : rcptsLeft - plan.size };
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

  /** One transaction for a chunk, ended by QUIT when `final`, else by EHLO; its replies count once the group ended in step. */
  private async run(session: ProbeSession, batch: Entry[], final: boolean, carriedBefore: number): Promise<AfterGroup> {
    const sendable: Entry[] = [];
    for (const entry of batch) {
      if (entry.settled) continue;
      // RFC 6531 §3.4: a UTF-8 local part cannot be sent to a server without SMTPUTF8.
      if (entry.target.needsUtf8 && !session.capabilities.smtputf8) {
        entry.end({ kind: 'utf8_unsupported' });
      } else sendable.push(entry);
    }
    if (sendable.length === 0) return 'open';
    const result = await session.transaction(
      sendable.map((e) => e.target.recipient),
      sendable.some((e) => e.target.needsUtf8),
      final ? 'quit' : 'ehlo',
    );
    attributeGroup(session.transcript, sendable.map((entry) => entry.target));
    const hostAsked = this.learn(session, result, sendable);
    const failure = result.failure;
    if (result.desync || !result.verified) {
      // Replies out of step, or a group cut before its end could prove them in step: none is used.
      const answered: Entry[] = [];
      const unanswered: Entry[] = [];
      sendable.forEach((entry, i) => (result.rcpt[i] || (result.mail && !is2xx(result.mail)) ? answered : unanswered).push(entry));
      const cause = failure ?? { kind: 'protocol', step: 'rcpt', reply: null, detail: 'replies out of step' };
      if (hostAsked) {
        // A 421 asking for time (busy, a rate): a pause of the host, not an answer about anyone.
        this.putBack(afterHostPause(sendable, this.rules(), failure?.reply ?? null, cause.detail));
        return 'broken';
      }
      if (!result.desync && this.cutByHost(result, session) && result.rcpt.some((reply) => reply !== undefined)) {
        // The host answered part of the group, then cut it (a 421 at its limit, a drop after
        // errors): the session moved forward. Everyone in it is asked again, and that is
        // counted apart from refusals.
        this.putBack(afterCut(sendable, this.rules(), cause));
        return 'broken';
      }
      this.putBack(afterRefusal(answered, this.rules(), cause));
      this.unanswered(unanswered, result, session);
      return 'broken';
    }
    const mail = result.mail;
    const throttledFrom = this.throttledFrom(result);
    const tooMany: Entry[] = [];
    const back: Entry[] = [];
    let lastThrottle: SmtpReply | null = null;
    let answered = 0;
    for (const [i, entry] of sendable.entries()) {
      const reply = result.rcpt[i];
      if (mail && !is2xx(mail)) {
        if (hostSignalOf(mail) === 'throttled') {
          lastThrottle = mail;
          back.push(entry);
        } else {
          entry.attempts++;
          entry.end({ kind: 'mail_rejected', reply: mail });
        }
      } else if (reply) {
        const signal = hostSignalOf(reply);
        if (signal === 'too_many_recipients') tooMany.push(entry);
        else if (signal === 'throttled' && i >= throttledFrom) {
          lastThrottle = reply;
          back.push(entry);
        } else {
          answered++;
          // Asked, and answered about itself: that is an attempt (a "later" included).
          entry.attempts++;
          entry.end({ kind: 'reply', reply });
        }
      }
    }
    // 452 4.5.3: the server's recipient limit (RFC 5321 §4.5.3.1.10).
    if (tooMany.length > 0 && answered > 0 && answered < this.profile.rcptLimit) {
      this.profile.rcptLimit = answered;
      void this.learning.save(this.host);
    }
    const throttle = lastThrottle;
    this.putBack(afterRefusal(tooMany, this.rules(), { kind: 'temporary', step: 'rcpt', reply: null, detail: 'too many recipients, again and again' }));
    this.putBack(afterHostPause(back, this.rules(), throttle, `the host kept throttling: ${throttle?.code ?? ''} ${throttle?.text ?? ''}`.slice(0, 300)));
    if (throttle !== null && PER_CONNECTION_RCPTS.test(throttle.text)) {
      // A cap on recipients per connection (Haraka's limit plugin): learnt from where it refused.
      const first = sendable.findIndex((_, i) => PER_CONNECTION_RCPTS.test(result.rcpt[i]?.text ?? ''));
      if (first >= 0 && this.learning.sessionRcptsLimited(this.host, carriedBefore + first)) void this.learning.save(this.host);
    }
    if (throttle !== null) {
      // Rate limited: wait before the next session, and use fewer at once.
      this.backOff();
      this.fewerSessions();
    }
    if (result.closed) return failure ? 'broken' : 'closed';
    // A throttled host (or one that asked for a back-off) gets no more from this session.
    return throttle !== null || hostAsked ? 'stop' : 'open';
  }

  /**
   * Recipients a broken group left without a reply. What the host did (a 421, an error sleep,
   * a drop after errors, replies out of step) sends them back to the queue; a timeout or a
   * drop out of the blue counts as an attempt, and `maxAttempts` of those end them.
   */
  private unanswered(entries: readonly Entry[], result: TransactionResult, session: ProbeSession): void {
    const failure = result.failure;
    const hostSide = result.desync || this.cutByHost(result, session);
    const cause = failure ?? { kind: 'temporary', step: 'rcpt', reply: null, detail: 'recipient not answered' };
    if (hostSide) this.putBack(afterRefusal(entries, this.rules(), cause));
    else this.putBack(afterSilence(entries, this.settings.maxAttempts, cause));
  }

  /**
   * Index from which every RCPT reply of the group is a throttling one. A host that rate-limits
   * answers so to all recipients from some point on; a throttling text between ordinary
   * answers is about that recipient (a greylisting server), read by classify-reply.
   */
  private throttledFrom(result: TransactionResult): number {
    let from = result.rcpt.length;
    for (let i = result.rcpt.length - 1; i >= 0; i--) {
      const reply = result.rcpt[i];
      if (reply === undefined) continue;
      if (hostSignalOf(reply) !== 'throttled') break;
      from = i;
    }
    return from;
  }

  /** What the transaction teaches about the host (transaction-lessons.ts); true when the host asked us to back off. */
  private learn(session: ProbeSession, result: TransactionResult, sent: readonly Entry[]): boolean {
    const asksForTime = learnFromTransaction(this.learning, this.host, session, result, sent.map((entry) => entry.target.urgent === true));
    if (asksForTime) {
      // A 421 with no error behind it: the host is busy or rate-limiting; give it time.
      this.backOff();
      this.fewerSessions();
    }
    return asksForTime;
  }

  /** The host ended the group: a 421, an error sleep, or a drop after errors (not a timeout, not a drop out of the blue). */
  private cutByHost(result: TransactionResult, session: ProbeSession): boolean {
    const failure = result.failure;
    return failure?.reply?.code === 421 || result.slowdownAfter !== null || (failure?.kind === 'dropped' && session.errors > 0);
  }

  /** The rules the put-back decisions (put-back.ts) read, as of now. */
  private rules(): PutBackRules {
    return {
      now: this.now(),
      closing: this.closing,
      maxRequeues: this.settings.maxRequeues ?? DEFAULT_MAX_REQUEUES,
      hostThrottleBoundMs: this.settings.hostThrottleBoundMs ?? DEFAULT_HOST_THROTTLE_BOUND_MS,
    };
  }

  /** Entries put back go first: they waited longest. */
  private putBack(entries: readonly Entry[]): void {
    if (entries.length > 0) this.pending.unshift(...entries);
  }

  /** QUITs every session and settles what is still waiting as aborted. */
  async close(): Promise<void> {
    this.closing = true;
    this.wakeBackoff?.();
    for (const wake of this.idle.splice(0)) wake();
    for (const entry of this.pending.splice(0)) entry.end({ kind: 'aborted' });
    await Promise.allSettled([...this.workers]);
  }
}
