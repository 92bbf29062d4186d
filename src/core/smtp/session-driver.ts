/**
 * Drives one open session of an MX host: takes groups from the host's line (sized by
 * next-group.ts and group-plan.ts), runs each as one pipelined transaction, and reads its
 * replies (group-replies.ts), putting back whom the host did not answer about (put-back.ts),
 * until the session should end. What the replies teach goes to the host's profile
 * (transaction-lessons.ts; what the greeting taught was learnt when the session opened, host-queue.ts).
 */
import { attributeGroup } from '../evidence/transcript.js';
import { planGroup } from './group-plan.js';
import { brokenGroupFate, perConnectionCapAt, readGroupReplies, sendableIn, splitByAnswer } from './group-replies.js';
import { hostPaused, rulesNow, type HostState } from './host-state.js';
import { errorRoom, goesOnInMessage, groupEnder, groupEndsSession, groupPlanInput, onlyOneGroup, sessionRcptsLeft } from './next-group.js';
import { afterCut, afterHostPause, afterRefusal, afterSilence, type Entry } from './put-back.js';
import type { ProbeSession, SessionFailure, TransactionResult } from './session.js';
import { learnFromTransaction } from './transaction-lessons.js';

/** After a group: the session goes on, is over (QUIT answered), should end (the host asked for a pause), or broke. */
type AfterGroup = 'open' | 'closed' | 'stop' | 'broken';

/**
 * Runs groups on the session until it should end. Returns the wait for QUIT's reply, if QUIT
 * was sent: the session is over for the host once QUIT is sent (a server ends it on reading
 * QUIT; the mail world's recorder counts it so), so the caller frees the session's slot for
 * the next session at once instead of after one more round trip. `openFailed`: the handshake
 * used up the session before its first group.
 */
export async function serveSession(
  state: HostState,
  session: ProbeSession,
  openFailed: (failure: SessionFailure) => void,
): Promise<{ farewell: Promise<unknown> | undefined }> {
  const { line, settings } = state;
  let farewell: Promise<unknown> | undefined;
  let after: AfterGroup = 'open';
  /** Recipients this session has carried (probes counted: a per-connection cap counts every RCPT). */
  let carried = 0;
  const maxTransactions = Math.min(settings.maxTransactionsPerSession, state.profile.transactions);
  // One group per session when the host's replies once fell out of step, or pipelined groups cannot be checked by a repeated EHLO.
  const oneGroup = onlyOneGroup(session);
  try {
    // The session counts its transactions (session.ts): several in a group, none for a group going on in an open message.
    while (after === 'open' && !state.closing && session.transactionsDone < maxTransactions) {
      if (!session.usable) {
        // A handshake that used up the session's lifetime: the host is too slow to probe.
        if (session.transactionsDone === 0) openFailed({ kind: 'timeout', step: 'banner', reply: null, detail: 'handshake used the whole session deadline' });
        break;
      }
      if (session.transactionsDone > 0 && errorRoom(state.profile, session.errors) < 1) break; // budget spent: the next recipients get a fresh session
      const plan = planGroup(
        groupPlanInput(state.profile, {
          waiting: line.length,
          urgent: line.urgentAtHead(),
          freeSessions: state.counts.open - state.counts.busy,
          maxRcptsPerTransaction: settings.maxRcptsPerTransaction,
          carried,
          sessionErrors: session.errors,
          transactionsDone: session.transactionsDone,
          setupRounds: state.link.setupRounds,
          estimate: state.learning.refusals(state.host),
          pipelined: session.pipelined,
          transactionsLeft: maxTransactions - session.transactionsDone,
          transactionsPerSession: maxTransactions,
        }),
      );
      const rcptsLeft = sessionRcptsLeft(state.profile, carried);
      const batch = line.take(plan.size);
      if (batch.length === 0) {
        if (plan.roomAfter < 1 && line.length > 0) break; // a fresh session serves them better
        const idleMs = Math.min(settings.sessionIdleMs, session.remainingMs - settings.session.stepTimeoutMs);
        if (state.closing || !(await line.waitForWork(idleMs))) break;
        continue;
      }
      const final = groupEndsSession({
        oneGroup,
        greetings: session.greetings,
        greetingsLimit: state.profile.greetings,
        lastTransaction: session.transactionsDone + Math.max(1, plan.transactions.length) >= maxTransactions,
        roomAfter: plan.roomAfter,
        rcptsLeftAfter: rcptsLeft === null ? null : rcptsLeft - plan.size,
      });
      const before = carried;
      carried += batch.length;
      state.counts.busy++;
      try {
        const rcptLimit = Math.min(settings.maxRcptsPerTransaction, state.profile.rcptLimit);
        const goOn = goesOnInMessage(session.pipelined, state.profile) && session.canGoOn(batch.length, batch.some((e) => e.target.needsUtf8), rcptLimit);
        after = await runGroup(state, session, messagesOf(batch, plan.transactions), final, before, goOn);
      } finally {
        state.counts.busy--;
      }
      // A group that ended the session without QUIT (the host answers QUIT late): QUIT follows now.
      if (final && after === 'open') break;
    }
    // quit() writes QUIT before it returns its promise. An engine that is closing does not wait for the 221.
    if ((after === 'open' || after === 'stop') && state.closing) session.quitWithoutWaiting();
    // A host that answers QUIT late waits for our end after it (Exim): QUIT ends our side.
    else if (after === 'open' || after === 'stop') farewell = session.quit(state.profile.slowQuit);
    if (after !== 'broken') state.backoff.reset();
  } finally {
    if (!farewell) session.destroy();
  }
  // Wrapped: an async function returning a promise would wait for it.
  return { farewell };
}

/** The entries taken for a group, in the transactions the plan made of them (the line may have held fewer). */
function messagesOf(batch: readonly Entry[], sizes: readonly number[]): Entry[][] {
  const messages: Entry[][] = [];
  let at = 0;
  for (const size of sizes.length > 0 ? sizes : [batch.length]) {
    if (at >= batch.length) break;
    messages.push(batch.slice(at, at + size));
    at += size;
  }
  if (at < batch.length) messages.push(batch.slice(at));
  return messages;
}

/**
 * One group for a chunk — one transaction, or several split by RSET — ended by QUIT when
 * `final`, else by EHLO when pipelined (nothing in lockstep); its replies count once the group
 * ended in step. Returns what the session does next.
 */
async function runGroup(state: HostState, session: ProbeSession, messages: Entry[][], final: boolean, carriedBefore: number, goOn: boolean): Promise<AfterGroup> {
  const sendableMessages = messages.map((message) => sendableIn(message, session.capabilities.smtputf8)).filter((message) => message.length > 0);
  if (sendableMessages.length === 0) return 'open';
  const sendable = sendableMessages.flat();
  const result = await session.transaction(
    sendable.map((e) => e.target.recipient),
    sendable.some((e) => e.target.needsUtf8),
    groupEnder(final, session, state.profile),
    sendableMessages.map((message) => message.length),
    goOn,
  );
  return readGroup(state, session, sendable, result, carriedBefore);
}

/** What a group's replies mean for its recipients and its host, and what the session does next. */
function readGroup(state: HostState, session: ProbeSession, sendable: Entry[], result: TransactionResult, carriedBefore: number): AfterGroup {
  const { line, learning, host } = state;
  attributeGroup(session.transcript, sendable.map((entry) => entry.target));
  // What the transaction teaches; a 421 with no error behind it asks for time.
  const hostAsked = learnFromTransaction(learning, host, session, result, sendable.map((entry) => entry.target.urgent === true));
  if (hostAsked) hostPaused(state);
  const failure = result.failure;
  if (result.desync || !result.verified) {
    // Replies out of step, or a group cut before its end could prove them in step: none is used.
    const cause = failure ?? { kind: 'protocol', step: 'rcpt', reply: null, detail: 'replies out of step' };
    const fate = brokenGroupFate(result, hostAsked, session.errors);
    if (fate.kind === 'host_paused') line.putBack(afterHostPause(sendable, rulesNow(state), failure?.reply ?? null, cause.detail));
    else if (fate.kind === 'cut') line.putBack(afterCut(sendable, rulesNow(state), cause));
    else {
      const { answered, unanswered } = splitByAnswer(sendable, result);
      line.putBack(afterRefusal(answered, rulesNow(state), cause));
      // Left without a reply: what the host did sends them back; a timeout or a drop out of the blue is an attempt.
      const silence = failure ?? { kind: 'temporary', step: 'rcpt', reply: null, detail: 'recipient not answered' };
      if (fate.unansweredByHost) line.putBack(afterRefusal(unanswered, rulesNow(state), silence));
      else line.putBack(afterSilence(unanswered, state.settings.maxAttempts, silence));
    }
    return 'broken';
  }
  const reading = readGroupReplies(sendable, result);
  // 452 4.5.3: the server's recipient limit (RFC 5321 §4.5.3.1.10).
  // A group that went on in an open message counts the recipients the message took before it.
  const inMessage = result.rcptsBefore + reading.answered;
  if (reading.tooMany.length > 0 && inMessage > 0 && inMessage < state.profile.rcptLimit) {
    state.profile.rcptLimit = inMessage;
    void learning.save(host);
  }
  const throttle = reading.throttle;
  line.putBack(afterRefusal(reading.tooMany, rulesNow(state), { kind: 'temporary', step: 'rcpt', reply: null, detail: 'too many recipients, again and again' }));
  line.putBack(afterHostPause(reading.paused, rulesNow(state), throttle, `the host kept throttling: ${throttle?.code ?? ''} ${throttle?.text ?? ''}`.slice(0, 300)));
  // A cap on recipients per connection (Haraka's limit plugin): learnt from where it refused.
  const capAt = perConnectionCapAt(result, throttle, sendable.length);
  if (capAt !== null && learning.sessionRcptsLimited(host, carriedBefore + capAt)) void learning.save(host);
  // Rate limited: wait before the next session, and use fewer at once.
  if (throttle !== null) hostPaused(state);
  if (result.closed) return failure ? 'broken' : 'closed';
  // A throttled host (or one that asked for a back-off) gets no more from this session.
  return throttle !== null || hostAsked ? 'stop' : 'open';
}
