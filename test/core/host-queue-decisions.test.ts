import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { Backoff, backoffMs } from '../../src/core/smtp/backoff.js';
import { brokenGroupFate, cutByHost, perConnectionCapAt, readGroupReplies, sendableIn, splitByAnswer, throttledFrom } from '../../src/core/smtp/group-replies.js';
import { measuredLink, unmeasuredLink } from '../../src/core/smtp/host-link.js';
import { HostLearning } from '../../src/core/smtp/host-profile.js';
import { errorRoom, groupEnder, groupEndsSession, groupPlanInput, keepAliveAfter, onlyOneGroup, type GroupEnd, type GroupSituation } from '../../src/core/smtp/next-group.js';
import { openFailureFate } from '../../src/core/smtp/open-failure.js';
import { Entry, afterCut, afterUnusableHost, type HostResult, type PutBackRules } from '../../src/core/smtp/put-back.js';
import { parseReplyText } from '../../src/core/replies/parse.js';
import type { SessionFailure, TransactionResult } from '../../src/core/smtp/session.js';
import { allowedSessions, fewerSessions, serverHasRoom, sessionsForPath, sessionsToStart, type SessionCounts } from '../../src/core/smtp/session-count.js';
import { WaitingLine } from '../../src/core/smtp/waiting-line.js';

const OK = parseReplyText('250 2.1.5 OK');
const UNKNOWN = parseReplyText('550 5.1.1 No such user');
const RATE = parseReplyText('450 4.7.1 Error: too many recipients from 203.0.113.7');
const FULL = parseReplyText('452 4.5.3 Too many recipients');
const HARAKA_CAP = parseReplyText('451 Too many recipient attempts');
const FAILURE: SessionFailure = { kind: 'temporary', step: 'rcpt', reply: null, detail: 'x' };
const RULES: PutBackRules = { now: 0, closing: false, maxRequeues: 2, hostThrottleBoundMs: 1000 };

function entries(n: number, urgent = 0): { list: Entry[]; results: HostResult[] } {
  const results: HostResult[] = [];
  const list = Array.from({ length: n }, (_, i) => new Entry({ recipient: `u${i}@x.test`, needsUtf8: false, urgent: i < urgent }, (r) => results.push(r)));
  return { list, results };
}

function group(rcpt: Array<ReturnType<typeof parseReplyText> | undefined>, more: Partial<TransactionResult> = {}): TransactionResult {
  return { mails: [OK], transactionOf: rcpt.map(() => 0), rcptsBefore: 0, rcpt, failure: null, verified: true, closed: false, desync: false, slowdownAfter: null, slowEhlo: false, slowQuit: false, slowRejections: 0, closedAfterGreeting: false, ...more };
}

const outcomes = (results: HostResult[]): string[] => results.map((r) => (r.kind === 'final' ? r.outcome.kind : r.kind));

describe("a group's replies, read (group-replies.ts)", () => {
  test('a recipient answered about itself ends with its attempt; a 452 4.5.3 and a run of throttling replies to the end go back', () => {
    const { list, results } = entries(4);
    const reading = readGroupReplies(list, group([OK, FULL, RATE, RATE]));
    assert.equal(reading.answered, 1);
    assert.deepEqual(reading.tooMany, [list[1]]);
    assert.deepEqual(reading.paused, [list[2], list[3]]);
    assert.equal(reading.throttle, RATE);
    assert.deepEqual(results, [{ kind: 'final', outcome: { kind: 'reply', reply: OK }, attempts: 1 }]);
  });

  test('a throttling text between ordinary answers is about that recipient (greylisting), not a pause of the host', () => {
    assert.equal(throttledFrom([RATE, OK, RATE, undefined]), 2, 'from the last ordinary answer on, gaps skipped');
    const { list, results } = entries(3);
    const reading = readGroupReplies(list, group([RATE, OK, OK]));
    assert.equal(reading.answered, 3);
    assert.deepEqual(reading.paused, []);
    assert.deepEqual(outcomes(results), ['reply', 'reply', 'reply']);
  });

  test('a refused MAIL answers for every recipient: mail_rejected, unless it throttles us (then all go back unasked)', () => {
    const refused = entries(2);
    readGroupReplies(refused.list, group([undefined, undefined], { mails: [UNKNOWN] }));
    assert.deepEqual(outcomes(refused.results), ['mail_rejected', 'mail_rejected']);
    const throttled = entries(2);
    const reading = readGroupReplies(throttled.list, group([undefined, undefined], { mails: [RATE] }));
    assert.equal(reading.paused.length, 2);
    assert.deepEqual(throttled.results, []);
  });

  test('a UTF-8 recipient ends utf8_unsupported at a server without SMTPUTF8, before anything is sent', () => {
    const results: HostResult[] = [];
    const utf8 = new Entry({ recipient: 'ü@x.test', needsUtf8: true }, (r) => results.push(r));
    const plain = new Entry({ recipient: 'u@x.test', needsUtf8: false }, (r) => results.push(r));
    assert.deepEqual(sendableIn([utf8, plain], false), [plain]);
    assert.deepEqual(outcomes(results), ['utf8_unsupported']);
    assert.equal(sendableIn([plain], true).length, 1);
  });

  test('a broken group: the host asking for time is a pause; a cut after some answers is progress; otherwise refusals, or silence', () => {
    const cut421 = group([OK, undefined], { verified: false, failure: { kind: 'temporary', step: 'rcpt', reply: parseReplyText('421 4.7.0 too many errors'), detail: '' } });
    assert.deepEqual(brokenGroupFate(cut421, true, 3), { kind: 'host_paused' });
    assert.deepEqual(brokenGroupFate(cut421, false, 3), { kind: 'cut' });
    const timeout = group([OK, undefined], { verified: false, failure: { kind: 'timeout', step: 'rcpt', reply: null, detail: '' } });
    assert.equal(cutByHost(timeout, 0), false);
    assert.deepEqual(brokenGroupFate(timeout, false, 0), { kind: 'refused', unansweredByHost: false });
    const dropAfterErrors = group([undefined], { verified: false, failure: { kind: 'dropped', step: 'rcpt', reply: null, detail: '' } });
    assert.equal(cutByHost(dropAfterErrors, 2), true, 'a drop after errors is the host ending the group');
    assert.deepEqual(brokenGroupFate(dropAfterErrors, false, 2), { kind: 'refused', unansweredByHost: true }, 'cut before any answer: nothing moved forward');
    assert.deepEqual(brokenGroupFate(group([OK], { desync: true }), false, 0), { kind: 'refused', unansweredByHost: true });
  });

  test('answered and unanswered recipients of a broken group are told apart', () => {
    const { list } = entries(3);
    const split = splitByAnswer(list, group([OK, undefined, UNKNOWN], { verified: false }));
    assert.deepEqual(split, { answered: [list[0], list[2]], unanswered: [list[1]] });
  });

  test("a throttle naming recipient attempts (Haraka's limit plugin) shows the per-connection cap where it first refused", () => {
    assert.equal(perConnectionCapAt(group([OK, OK, HARAKA_CAP, HARAKA_CAP]), HARAKA_CAP, 4), 2);
    assert.equal(perConnectionCapAt(group([OK, RATE]), RATE, 2), null, 'a rate limit is no cap');
    assert.equal(perConnectionCapAt(group([OK]), null, 1), null);
  });
});

describe('a session that could not be opened (open-failure.ts)', () => {
  test('with another session up, any failure means the host is busier than our limit; a refusal for now teaches its limit', () => {
    const busy: SessionFailure = { kind: 'temporary', step: 'banner', reply: parseReplyText('421 4.7.0 Too many connections'), detail: '' };
    assert.deepEqual(openFailureFate(busy, true), { kind: 'busier', teaches: true });
    assert.deepEqual(openFailureFate({ kind: 'refused', step: 'connect', reply: null, detail: '' }, true), { kind: 'busier', teaches: false });
    assert.deepEqual(openFailureFate(busy, false), { kind: 'paused' });
  });

  test('alone: only a host not reached passes the mail to the next MX (RFC 5321 §5.1); one that answered has spoken', () => {
    assert.deepEqual(openFailureFate({ kind: 'refused', step: 'connect', reply: null, detail: '' }, false), { kind: 'unreachable' });
    assert.deepEqual(openFailureFate({ kind: 'timeout', step: 'banner', reply: null, detail: '' }, false), { kind: 'unreachable' });
    assert.deepEqual(openFailureFate({ kind: 'rejected', step: 'banner', reply: parseReplyText('554 go away'), detail: '' }, false), { kind: 'failed' });
    assert.deepEqual(openFailureFate({ kind: 'timeout', step: 'ehlo', reply: null, detail: '' }, false), { kind: 'failed' });
  });

  test('every waiting recipient has had its attempt: failover to the next MX, or a failure', () => {
    const { list, results } = entries(2);
    afterUnusableHost(list, FAILURE, true);
    assert.deepEqual(results, [
      { kind: 'failover', failure: FAILURE, attempts: 1 },
      { kind: 'failover', failure: FAILURE, attempts: 1 },
    ]);
    const answered = entries(1);
    afterUnusableHost(answered.list, FAILURE, false);
    assert.deepEqual(answered.results, [{ kind: 'final', outcome: { kind: 'failure', failure: FAILURE }, attempts: 1 }]);
  });
});

describe('how a group leaves the session open (next-group.ts)', () => {
  test('a pipelined group ends with EHLO, whose reply proves the order; a lockstep group needs no closing command', () => {
    assert.equal(keepAliveAfter(true), 'ehlo');
    assert.equal(keepAliveAfter(false), 'none');
  });

  test('one group per session only for a host once out of step, or pipelined groups no EHLO can close', () => {
    const session = (strict: boolean, pipelined: boolean, canVerifyWithEhlo: boolean) => ({ strict, pipelined, canVerifyWithEhlo });
    assert.equal(onlyOneGroup(session(true, false, true)), true, 'strict');
    assert.equal(onlyOneGroup(session(false, true, false)), true);
    assert.equal(onlyOneGroup(session(false, false, true)), false, 'no PIPELINING (OpenSMTPD): several lockstep groups');
    assert.equal(onlyOneGroup(session(false, false, false)), false, 'HELO only: lockstep too');
    assert.equal(onlyOneGroup(session(false, true, true)), false);
  });
});

describe('sessions at once, the path, the back-off (session-count.ts, host-link.ts, backoff.ts)', () => {
  const counts = (open: number, quitting = 0, target = 10): SessionCounts => ({ open, busy: 0, quitting, target });

  test("allowed sessions are the target under the MTA's ceiling, never none; a busier host gets one fewer than were open", () => {
    assert.equal(allowedSessions(counts(0, 0, 10), 3), 3);
    assert.equal(allowedSessions(counts(0, 0, 0), 3), 1);
    assert.equal(fewerSessions(counts(3), 5), 2);
    assert.equal(fewerSessions(counts(1), 5), 1, 'never fewer than one');
  });

  test('a session we sent QUIT on still counts at the server on a far path, or at a host that holds every reply', () => {
    assert.equal(serverHasRoom(counts(2, 1), 3, 1, false), true, 'near path: the QUIT is read before we reconnect');
    assert.equal(serverHasRoom(counts(2, 1), 3, 80, false), false);
    assert.equal(serverHasRoom(counts(2, 1), 3, 1, true), false);
    assert.equal(serverHasRoom(counts(2, 1), 3, null, false), true, 'unmeasured: near');
  });

  test('sessions to start: blind at first contact, then all the path and the MTA allow once the first session has measured them', () => {
    // 400 recipients waiting, nothing known: two sessions (a near path assumed) under the first-contact three.
    assert.equal(sessionsToStart(counts(0), 400, 4, sessionsForPath(0, false, 3), 3, null, false), 2);
    // The first session opened: 80 ms round trip, Exim named (8 allowed). Two are open: six more now.
    const exim = allowedSessions(counts(2), 8);
    assert.equal(sessionsToStart(counts(2), 400, 4, sessionsForPath(80, false, exim), exim, 80, false), 6);
    // A session that QUIT still counts at the server on a far path; a handful of recipients needs no more sessions.
    assert.equal(sessionsToStart(counts(6, 1), 400, 4, 8, 8, 80, false), 1);
    assert.equal(sessionsToStart(counts(2), 6, 4, 8, 8, 80, false), 0);
  });

  test("the path's round trip is the EHLO's, or the connect's where the greeting was held; both figures are smoothed", () => {
    const first = measuredLink(unmeasuredLink(), { elapsedMs: 40, connectMs: 5, roundTripMs: 10, greetedSlowly: false });
    assert.equal(first.pathMs, 10);
    assert.ok(Math.abs(first.setupRounds - (0.7 * 3 + 0.3 * 4)) < 1e-9);
    const held = measuredLink(first, { elapsedMs: 3000, connectMs: 12, roundTripMs: 1000, greetedSlowly: true });
    assert.ok(Math.abs((held.pathMs ?? 0) - (0.7 * 10 + 0.3 * 12)) < 1e-9, 'a held EHLO is not the path');
    assert.equal(measuredLink({ ...first, tlsBroken: true }, { elapsedMs: 1, connectMs: 1, roundTripMs: 1, greetedSlowly: false }).tlsBroken, true);
  });

  test('the back-off doubles up to its ceiling, never shortens one under way, and starts again after a good session', async () => {
    assert.deepEqual([0, 1, 2, 3, 4].map((step) => backoffMs(step, 1000, 8000)), [1000, 2000, 4000, 8000, 8000]);
    let now = 0;
    const backoff = new Backoff(1000, 8000, () => now);
    backoff.extend();
    backoff.extend();
    now = 3000;
    await backoff.waitOut(); // the second back-off ran to 2000: over
    backoff.reset();
    backoff.extend();
    let waited = false;
    const wait = backoff.waitOut().then(() => (waited = true));
    assert.equal(waited, false);
    backoff.cutShort();
    await wait;
    assert.equal(waited, true, 'cut short by close()');
  });
});

describe('the next group of a session (next-group.ts)', () => {
  const learning = new HostLearning({ get: () => Promise.resolve(undefined), set: () => Promise.resolve() }, { errorBudget: 8, transactionErrors: 3, sessionRcpts: 20, sessions: 3, rcptLimit: 100, transactions: 10 }, 0);
  const situation: GroupSituation = {
    waiting: 50,
    urgent: 0,
    freeSessions: 1,
    maxRcptsPerTransaction: 100,
    carried: 5,
    sessionErrors: 2,
    transactionsDone: 1,
    setupRounds: 3,
    estimate: { rate: 0.1, weight: 8, known: false },
    pipelined: true,
    transactionsLeft: 9,
    transactionsPerSession: 10,
  };

  test('the plan reads the host as known: its recipient limit, its per-connection cap left, its budgets', () => {
    const profile = { ...learning.profile('mx.test'), rcptLimit: 40 };
    const input = groupPlanInput(profile, situation);
    assert.equal(input.rcptLimit, 40);
    assert.equal(input.sessionRcptsLeft, 15);
    assert.equal(input.errorBudget, 8);
    assert.equal(input.transactionErrors, 3);
    assert.equal(errorRoom(profile, 2), 7, 'budget plus the slack of one, less the errors made');
  });

  test('at a host that holds every reply, a session is filled to its recipient cap: no per-message error cap, a budget of the cap', () => {
    const input = groupPlanInput({ ...learning.profile('mx.test'), slowEveryReply: true }, situation);
    assert.equal(input.transactionErrors, null);
    assert.equal(input.errorBudget, 20);
  });

  test("what ends a group: QUIT rides the session's last one — or, at a host that answers QUIT late (Exim), an EHLO does and QUIT follows", () => {
    const pipelined = { pipelined: true, canVerifyWithEhlo: true, greetings: 1 };
    const prompt = { slowQuit: false, greetings: null };
    const late = { slowQuit: true, greetings: null };
    assert.equal(groupEnder(false, pipelined, prompt), 'ehlo');
    assert.equal(groupEnder(true, pipelined, prompt), 'quit');
    assert.equal(groupEnder(true, pipelined, late), 'ehlo');
    assert.equal(groupEnder(true, { ...pipelined, pipelined: false }, late), 'none', 'lockstep: nothing to check the order with, nothing needed');
    assert.equal(groupEnder(true, pipelined, { slowQuit: true, greetings: 1 }), 'quit', 'no greeting left');
    assert.equal(groupEnder(true, { ...pipelined, canVerifyWithEhlo: false }, late), 'quit', 'the server answered HELO only');
  });

  test('QUIT rides the group when the session certainly ends with it', () => {
    const goesOn: GroupEnd = { oneGroup: false, greetings: 1, greetingsLimit: null, lastTransaction: false, roomAfter: 3, rcptsLeftAfter: null };
    assert.equal(groupEndsSession(goesOn), false);
    assert.equal(groupEndsSession({ ...goesOn, oneGroup: true }), true);
    assert.equal(groupEndsSession({ ...goesOn, greetingsLimit: 1 }), true, 'no greeting left to end the group with');
    assert.equal(groupEndsSession({ ...goesOn, lastTransaction: true }), true);
    assert.equal(groupEndsSession({ ...goesOn, roomAfter: 0.5 }), true, 'the error room used');
    assert.equal(groupEndsSession({ ...goesOn, rcptsLeftAfter: 0 }), true, 'the per-connection cap reached');
  });
});

describe('the line of one host (waiting-line.ts) and a cut group put back (put-back.ts)', () => {
  test('catch-all probes and recipients put back go to the head; an idle session is woken by new work', async () => {
    const line = new WaitingLine();
    const { list } = entries(4, 1);
    const [probe, a, b, c] = list as [Entry, Entry, Entry, Entry];
    line.add(a);
    line.add(probe);
    line.add(b);
    line.putBack([c]);
    assert.equal(line.urgentAtHead(), 0, 'the put-back entry is before the probe');
    assert.deepEqual(line.take(2), [c, probe]);
    line.remove(b);
    assert.deepEqual(line.takeAll(), [a]);
    const woken = line.waitForWork(60_000);
    line.wakeIdle();
    assert.equal(await woken, true);
    assert.equal(await line.waitForWork(0), false, 'no time to wait: no wait');
  });

  test('a cut puts back first those whose cuts now count as refusals, then the others, in their order', () => {
    const { list } = entries(3);
    const [a, b, c] = list as [Entry, Entry, Entry];
    b.cuts = 2;
    assert.deepEqual(afterCut(list, RULES, FAILURE), [b, a, c]);
    assert.equal(b.requeues, 1);
    assert.equal(a.requeues, 0);
  });
});
