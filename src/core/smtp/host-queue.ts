/**
 * The work queue of one MX host. Recipients of any domain routed to this host wait here;
 * up to `maxSessions` sessions (each holding a SessionLimiter slot) take chunks, run them as
 * pipelined transactions, and end before the host's error budget is spent. So one session
 * serves many addresses, concurrent sessions per host stay bounded, a burst is split over
 * the allowed sessions — and no session collects more errors than the server tolerates.
 *
 * docs/engine-sessions.md describes the design; in short:
 * - Each group is sized (group-plan.ts, next-group.ts) so that the errors it is expected to
 *   bring fit the session's budget (host-profile.ts); a session whose budget is spent ends, and
 *   the next recipients go to a fresh session.
 * - A reply is trusted only once its group has ended in step (session.ts: the QUIT or EHLO
 *   that ends every group answered at its place). A group whose replies fell out of step gives
 *   its recipients back to the queue, and the host is asked one command at a time, one group
 *   per session, from then on.
 * - A 421, a dropped connection after errors, an error sleep or a throttling reply is never
 *   a verdict: the recipients not answered go back to the queue and are asked again in a new
 *   session (after a back-off when the host asked for one). Only a host that keeps refusing
 *   ends them as failures (TRANSIENT, with a retry window).
 *
 * This file keeps the line and opens sessions; session-driver.ts runs their groups; both work
 * on the host's state (host-state.ts). What they decide is in pure files beside them:
 * put-back.ts (a recipient not answered), group-replies.ts (a group's replies), open-failure.ts
 * (a session not opened), session-count.ts (sessions at once), next-group.ts (the next group),
 * host-link.ts (the path), backoff.ts, greeting-lessons.ts / transaction-lessons.ts (learning).
 */
import type { SessionLimiter } from '../ports.js';
import { systemClock } from '../ports.js';
import { Backoff } from './backoff.js';
import { learnFromGreeting } from './greeting-lessons.js';
import { measuredLink, unmeasuredLink } from './host-link.js';
import type { HostLearning } from './host-profile.js';
import { DEFAULT_BACKOFF_MS, DEFAULT_MAX_BACKOFF_MS, learningOfOwn, type HostQueueSettings } from './host-queue-settings.js';
import { allowed, fullTarget, rulesNow, useFewerSessions, wanted, type HostState } from './host-state.js';
import { openFailureFate } from './open-failure.js';
import { Entry, afterHostPause, afterUnusableHost, type HostResultListener, type HostResult, type ProbeTarget } from './put-back.js';
import { ProbeSession, type SessionFailure } from './session.js';
import { sessionsToStart } from './session-count.js';
import { serveSession } from './session-driver.js';
import { WaitingLine } from './waiting-line.js';
import { noteOpenFailure } from '../evidence/transcript.js';

export type { HostOutcome, HostResult, HostResultListener, ProbeTarget } from './put-back.js';
export type { HostQueueSettings } from './host-queue-settings.js';

/** A further session only pays off for a few recipients more. */
const MIN_RECIPIENTS_PER_SESSION = 4;

export class HostQueue {
  private readonly state: HostState;
  /** The stored profile of the host, loaded before the first session opens. */
  private readonly ready: Promise<void>;
  private readonly workers = new Set<Promise<void>>();
  /** Sessions whose QUIT is out and whose 221 is awaited. */
  private readonly farewells = new Set<ProbeSession>();

  constructor(
    readonly host: string,
    private readonly addresses: readonly string[],
    settings: HostQueueSettings,
    private readonly limiter: SessionLimiter,
    private readonly onHostDown: (failure: SessionFailure) => void,
    private readonly onIdle?: () => void,
    learning: HostLearning = learningOfOwn(settings),
  ) {
    const now = settings.session.now ?? (() => systemClock.now().getTime());
    const state: HostState = {
      host,
      settings,
      now,
      line: new WaitingLine(),
      counts: { open: 0, busy: 0, quitting: 0, target: 0 },
      link: unmeasuredLink(),
      backoff: new Backoff(settings.backoffMs ?? DEFAULT_BACKOFF_MS, settings.maxBackoffMs ?? DEFAULT_MAX_BACKOFF_MS, now),
      profile: learning.profile(host),
      learning,
      closing: false,
    };
    state.counts.target = fullTarget(state);
    this.state = state;
    this.ready = learning.load(host).then((profile) => {
      state.profile = profile;
      state.counts.target = fullTarget(state);
    });
  }

  submit(target: ProbeTarget, signal?: AbortSignal): Promise<HostResult> {
    return new Promise((resolve) => this.enqueue(target, resolve, signal));
  }

  /** Like submit(), with a callback instead of a promise (batches enqueue thousands). */
  enqueue(target: ProbeTarget, onResult: HostResultListener, signal?: AbortSignal): void {
    const entry = new Entry(target, onResult);
    if (this.state.closing || signal?.aborted) return entry.settle({ kind: 'final', outcome: { kind: 'aborted' }, attempts: 0 });
    if (signal) {
      const onAbort = (): void => {
        this.state.line.remove(entry);
        entry.settle({ kind: 'final', outcome: { kind: 'aborted' }, attempts: entry.attempts });
      };
      signal.addEventListener('abort', onAbort, { once: true });
      entry.unlisten = () => signal.removeEventListener('abort', onAbort);
    }
    this.state.line.add(entry);
    this.pump();
  }

  private pump(): void {
    const { line } = this.state;
    if (this.state.closing || line.length === 0) return;
    line.wakeIdle();
    // A single check (and its catch-all probe) rides one session, a batch of a domain gets the full allowance.
    this.spawnUpTo(line.length, false);
  }

  /**
   * Opens sessions for recipients a batch is about to submit, so the wait for banner and
   * EHLO overlaps the engine's own per-address work instead of following it.
   */
  warm(expectedRecipients: number): void {
    if (!this.state.closing) this.spawnUpTo(expectedRecipients, true);
  }

  private spawnUpTo(recipients: number, warm: boolean): void {
    const state = this.state;
    const start = sessionsToStart(state.counts, recipients, MIN_RECIPIENTS_PER_SESSION, wanted(state), allowed(state), state.link.pathMs, state.profile.slowEveryReply);
    for (let i = 0; i < start; i++) {
      state.counts.open++;
      const worker = this.work(warm).finally(() => this.workers.delete(worker));
      this.workers.add(worker);
    }
  }

  private async work(warm: boolean): Promise<void> {
    const state = this.state;
    let release: (() => Promise<void> | void) | undefined;
    let farewell: Promise<unknown> | undefined;
    let quitting: ProbeSession | undefined;
    try {
      await this.ready;
      if (!state.closing) await state.backoff.waitOut();
      // What was learnt (or a back-off) may allow fewer sessions than were started.
      if (state.closing || state.counts.open > wanted(state) || (!warm && state.line.length === 0)) return;
      release = await this.limiter.acquire(this.host);
      const session = await this.open(warm);
      if (session) {
        // The opened session measured the path and named the MTA: more sessions may be worth having now.
        learnFromGreeting(state.learning, this.host, session);
        this.pump();
        ({ farewell } = await serveSession(state, session, (failure) => this.openFailed(failure)));
        if (farewell) quitting = session;
      }
    } finally {
      state.counts.open--;
      if (farewell) state.counts.quitting++;
      await release?.();
      this.pump();
      // The 221 is still awaited (bounded, session.quit()): the queue is not idle — and not
      // dropped by the dispatcher, whose close() would then miss it — before the socket is
      // closed. close() stops waiting for it (quitWithoutWaiting).
      if (quitting) this.farewells.add(quitting);
      if (quitting && state.closing) quitting.quitWithoutWaiting();
      await farewell;
      if (quitting) {
        this.farewells.delete(quitting);
        // A 221 that came late (Exim corks it): groups that end a session end with EHLO from now on.
        if (quitting.quitAnsweredLate && state.learning.quitSlow(this.host)) void state.learning.save(this.host);
      }
      if (farewell) {
        state.counts.quitting--;
        this.pump();
      }
      if (state.counts.open === 0 && state.line.length === 0) {
        // Quiet again: the next burst may try the host's full allowance, and the queue can go.
        state.counts.target = fullTarget(state);
        this.onIdle?.();
      }
    }
  }

  /** Opens a session, measuring the path by it; a broken TLS handshake is retried once in plaintext (RFC 3207). */
  private async open(warm: boolean): Promise<ProbeSession | null> {
    const state = this.state;
    let failure: SessionFailure | null = null;
    for (let tries = 0; tries < 2 && (warm || state.line.length > 0) && !state.closing; tries++) {
      const started = state.now();
      const opened = await ProbeSession.open(this.host, this.addresses, {
        ...state.settings.session,
        useStartTls: !state.link.tlsBroken,
        strict: state.profile.strict,
        awaitSlowReplies: state.profile.slowEveryReply,
      });
      if (opened.ok) {
        const { session } = opened;
        state.link = measuredLink(state.link, { elapsedMs: state.now() - started, connectMs: session.connectMs, roundTripMs: session.roundTripMs, greetedSlowly: session.greetedSlowly });
        return session;
      }
      failure = opened.failure;
      if (failure.kind !== 'tls' || state.link.tlsBroken) break;
      state.link.tlsBroken = true;
    }
    if (failure) this.openFailed(failure);
    return null;
  }

  private openFailed(failure: SessionFailure): void {
    const state = this.state;
    noteOpenFailure(state.line.targets(), state.host, failure.detail);
    const fate = openFailureFate(failure, state.counts.open > 1);
    switch (fate.kind) {
      case 'busier':
        // Serve the host with fewer sessions from now on; a refusal for now also lowers what it taught.
        useFewerSessions(state);
        if (fate.teaches && state.profile.sessions > state.counts.target) {
          state.profile.sessions = state.counts.target;
          void state.learning.save(this.host);
        }
        return;
      case 'paused':
        // The recipients wait for a back-off and a new session, unless the host has kept them
        // waiting past the bound (then they end host_throttled, recheck_scheduled).
        state.backoff.extend();
        state.line.putBack(afterHostPause(state.line.takeAll(), rulesNow(state), failure.reply, failure.detail));
        return;
      case 'unreachable':
        this.onHostDown(failure);
        return afterUnusableHost(state.line.takeAll(), failure, true);
      case 'failed':
        return afterUnusableHost(state.line.takeAll(), failure, false);
    }
  }

  /** QUITs every session and settles what is still waiting as aborted. */
  async close(): Promise<void> {
    this.state.closing = true;
    this.state.backoff.cutShort();
    this.state.line.wakeIdle();
    for (const entry of this.state.line.takeAll()) entry.end({ kind: 'aborted' });
    for (const session of this.farewells) session.quitWithoutWaiting();
    await Promise.allSettled([...this.workers]);
  }
}
