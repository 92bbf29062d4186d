import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { planGroup, type GroupPlanInput } from '../../src/core/smtp/group-plan.js';
import { HostLearning } from '../../src/core/smtp/host-profile.js';
import { answersQuitLate, keepsNoSessionErrorCount, countsErrorsPerSession, serverFamilyOf } from '../../src/core/smtp/server-family.js';
import { learnFromGreeting } from '../../src/core/smtp/greeting-lessons.js';
import { goesOnInMessage, sessionErrorBudget } from '../../src/core/smtp/next-group.js';
import { FIRST_CONTACT_SESSIONS, NO_CLIENT_LIMIT_CEILING, allowedSessions, sessionCeiling, sessionsForPath } from '../../src/core/smtp/session-count.js';

/** A fresh session at a host never asked before: Postfix-like budget, Exim-like cap per message. */
const FIRST: GroupPlanInput = {
  waiting: 100,
  urgent: 1,
  freeSessions: 1,
  rcptLimit: 100,
  sessionRcptsLeft: null,
  errorBudget: 8,
  sessionErrors: 0,
  transactionErrors: 3,
  estimate: { rate: 0.25, weight: 8, known: false },
  transactionsDone: 0,
  setupRounds: 3,
  transactionsLeft: 1,
  transactionsPerSession: 1,
  groupCap: null,
};

describe('first contact stays under every known limit (group-plan.ts)', () => {
  test('before the refusal share is known, a group plans for every recipient refused: catch-all probe plus recipients ≤ 9 errors (Postfix soft limit 10)', () => {
    const plan = planGroup({ ...FIRST, transactionErrors: null });
    assert.equal(plan.size, 9, 'the probe and eight recipients');
    assert.ok(plan.roomAfter < 1, 'the session has used its room: QUIT rides this group instead of another greeting');
  });

  test("before the host is known, a transaction carries at most 3 possible refusals (Exim's ACL delay starts at the 4th unknown of a message)", () => {
    const plan = planGroup(FIRST);
    assert.equal(plan.size, 3, 'the probe and two recipients');
    assert.equal(planGroup({ ...FIRST, urgent: 0 }).size, 3);
  });

  test('the old plan, sized on a prior, put the probe and nine recipients in the first group: ten errors at a domain whose every address is gone', () => {
    // What the issue measured at Postfix: this case must now stay at nine.
    const everyoneGone = planGroup({ ...FIRST, transactionErrors: null, estimate: { rate: 0.25, weight: 8, known: false } });
    assert.ok(everyoneGone.size <= 9, `${everyoneGone.size} recipients, each possibly refused`);
  });

  test('once the share is known, groups grow with it (learnt upwards): a clean list fills the transaction', () => {
    const known = { rate: 0.01, weight: 208, known: true };
    const perSession = planGroup({ ...FIRST, urgent: 0, transactionErrors: null, estimate: known });
    // As large as keeps the session under Postfix's hard limit (20) even if every one were refused.
    assert.equal(perSession.size, 18);
    const perMessage = planGroup({ ...FIRST, urgent: 0, estimate: known });
    assert.ok(perMessage.size > 3, `with the share known, a transaction carries more than first contact's three: ${perMessage.size}`);
    // A tenth refused: three refusals per message, with margin, hold fewer recipients than nine per session.
    const tenth = { rate: 0.1, weight: 208, known: true };
    const [message, session] = [planGroup({ ...FIRST, urgent: 0, estimate: tenth }).size, planGroup({ ...FIRST, urgent: 0, transactionErrors: null, estimate: tenth }).size];
    assert.ok(message > 3 && message < session, `${message} per message, ${session} per session`);
  });

  test('a known share of refusals near one keeps each session at nine refusals', () => {
    const plan = planGroup({ ...FIRST, urgent: 0, transactionErrors: null, estimate: { rate: 0.99, weight: 108, known: true } });
    assert.equal(plan.size, 9);
  });

  test('a session with its room used takes nothing more when a fresh session would carry more', () => {
    const plan = planGroup({ ...FIRST, urgent: 0, transactionErrors: null, sessionErrors: 8, transactionsDone: 1, estimate: { rate: 0.3, weight: 108, known: true } });
    assert.deepEqual([plan.size, plan.freshIsBetter], [0, true]);
  });
});

describe('several messages in one pipelined group at a host that counts refusals per message (group-plan.ts)', () => {
  /** Exim, named by its banner: no session budget (next-group.ts sessionErrorBudget), three refusals per message, ten messages a session. */
  const EXIM: GroupPlanInput = { ...FIRST, errorBudget: Number.POSITIVE_INFINITY, transactionsLeft: 10, transactionsPerSession: 10 };

  test('first contact: ten messages of three, the catch-all probe in the first — no message can reach a 4th refusal, whatever the share', () => {
    const plan = planGroup(EXIM);
    assert.deepEqual(plan.transactions, [3, 3, 3, 3, 3, 3, 3, 3, 3, 3]);
    assert.equal(plan.size, 30);
    assert.ok(plan.roomAfter >= 1, 'no session budget to use up');
  });

  test('the messages the session has left bound the group, and the waiting recipients are spread over the free sessions', () => {
    assert.deepEqual(planGroup({ ...EXIM, transactionsLeft: 4 }).transactions, [3, 3, 3, 3]);
    assert.deepEqual(planGroup({ ...EXIM, urgent: 0, waiting: 20, freeSessions: 2 }).transactions, [3, 3, 3, 1]);
  });

  test('a clean list (share known, near zero) fills each message further, still with the margin under its cap', () => {
    const plan = planGroup({ ...EXIM, urgent: 0, estimate: { rate: 0.02, weight: 400, known: true } });
    assert.ok(plan.transactions.length > 1 && plan.transactions.every((n) => n > 3), plan.transactions.join(','));
    for (const n of plan.transactions) assert.ok(n * 0.02 + 3 * Math.sqrt(n * 0.02 * 0.98) <= 3, `${n} recipients in a message`);
  });

  test('at a host not known (a session budget of its own) a group stays one message: the session learns between groups', () => {
    const plan = planGroup({ ...EXIM, errorBudget: 8 });
    assert.deepEqual(plan.transactions, [3]);
    assert.deepEqual(planGroup({ ...EXIM, errorBudget: 8, estimate: { rate: 0.25, weight: 108, known: true } }).transactions.length, 1);
  });

  test('a lockstep session going on in its open message takes small groups (the line shared to the end), never ends for a fresh session', () => {
    const plan = planGroup({ ...FIRST, urgent: 0, errorBudget: Number.POSITIVE_INFINITY, transactionErrors: null, groupCap: 4, transactionsDone: 1, estimate: { rate: 0.25, weight: 108, known: true } });
    assert.deepEqual([plan.size, plan.freshIsBetter, plan.transactions], [4, false, [4]]);
    assert.equal(goesOnInMessage(false, { transactionErrors: null }), true);
    assert.equal(goesOnInMessage(true, { transactionErrors: null }), false, 'pipelined: a group is one round trip whatever its size');
    assert.equal(goesOnInMessage(false, { transactionErrors: 3 }), false, 'a per-message refusal cap would run on across the groups');
  });

  test('at a host that counts errors per session only (no per-message cap) a group is one message', () => {
    assert.equal(planGroup({ ...EXIM, transactionErrors: null, errorBudget: 8 }).transactions.length, 1);
  });
});

describe('the greeting names the MTA (server-family.ts)', () => {
  test('stock banners of Postfix, Exim, Sendmail, OpenSMTPD, Haraka and Exchange', () => {
    const banners: Array<[string, string]> = [
      ['mx.example.com ESMTP Postfix (Debian/GNU)', 'postfix'],
      ['mx.example.com ESMTP Exim 4.96 Fri, 27 Nov 2026 23:00:00 +0000', 'exim'],
      ['mx.example.com ESMTP Sendmail 8.17.1/8.17.1; Fri, 27 Nov 2026', 'sendmail'],
      ['mx.example.com ESMTP OpenSMTPD', 'opensmtpd'],
      ['mx.example.com ESMTP Haraka/3.0.3 ready', 'haraka'],
      ['EX01.example.com Microsoft ESMTP MAIL Service ready at Fri, 27 Nov 2026', 'exchange'],
    ];
    for (const [banner, family] of banners) assert.equal(serverFamilyOf(banner), family, banner);
    assert.equal(serverFamilyOf('mx.google.com ESMTP a1si123 - gsmtp'), null);
  });

  test('Exim and unnamed servers keep the per-message cap; the others count errors per session', () => {
    assert.equal(countsErrorsPerSession('exim'), false);
    assert.equal(countsErrorsPerSession(null), false);
    for (const family of ['postfix', 'sendmail', 'opensmtpd', 'haraka', 'exchange'] as const) assert.equal(countsErrorsPerSession(family), true, family);
  });

  test("Exim's greeting: refusals counted per message only (no session budget) and a QUIT answered late; OpenSMTPD's: no count at all; an unnamed server neither", () => {
    const learning = new HostLearning({ get: () => Promise.resolve(undefined), set: () => Promise.resolve() }, { errorBudget: 8, transactionErrors: 3, sessionRcpts: 20, sessions: 10, rcptLimit: 100, transactions: 10 }, 0);
    const greeted = (banner: string) => ({ greeting: { code: 220, text: banner, lines: [banner], enhanced: null }, greetedSlowly: false });
    learnFromGreeting(learning, 'exim.test', greeted('mx.example.com ESMTP Exim 4.96 Fri, 27 Nov 2026 23:00:00 +0000'));
    learnFromGreeting(learning, 'other.test', greeted('mx.example.com ESMTP'));
    const exim = learning.profile('exim.test');
    assert.deepEqual([exim.noSessionErrors, exim.slowQuit, exim.transactionErrors], [true, true, 3]);
    assert.equal(sessionErrorBudget(exim), Number.POSITIVE_INFINITY);
    learnFromGreeting(learning, 'smtpd.test', greeted('mx.example.com ESMTP OpenSMTPD'));
    const smtpd = learning.profile('smtpd.test');
    assert.deepEqual([smtpd.noSessionErrors, smtpd.slowQuit, smtpd.transactionErrors, sessionErrorBudget(smtpd)], [true, false, null, Number.POSITIVE_INFINITY], 'OpenSMTPD counts no refusals at all');
    const other = learning.profile('other.test');
    assert.deepEqual([other.noSessionErrors, other.slowQuit, sessionErrorBudget(other)], [false, false, 8]);
    assert.equal(answersQuitLate('postfix'), false);
    assert.equal(keepsNoSessionErrorCount('postfix'), false);
  });

  test('a per-session limit shown after all (a tarpit, an error limit) brings the session budget back', () => {
    const learning = new HostLearning({ get: () => Promise.resolve(undefined), set: () => Promise.resolve() }, { errorBudget: 8, transactionErrors: 3, sessionRcpts: 20, sessions: 10, rcptLimit: 100, transactions: 10 }, 0);
    learning.noSessionErrorCount('a.test');
    assert.equal(learning.tarpitSeen('a.test'), true);
    assert.equal(sessionErrorBudget(learning.profile('a.test')), 3);
    learning.noSessionErrorCount('b.test');
    assert.equal(learning.limitSeen('b.test', 12), true, 'a limit above the budget still ends the per-message reading');
    assert.equal(sessionErrorBudget(learning.profile('b.test')), 8);
  });
});

describe('sessions sized to the path, under what the host allows (session-count.ts)', () => {
  test('two on a near path, one more per 10 ms of round trip, never above what is allowed', () => {
    assert.equal(sessionsForPath(0.2, false, 10), 2);
    assert.equal(sessionsForPath(80, false, 10), 10);
    assert.equal(sessionsForPath(40, false, 10), 6);
    assert.equal(sessionsForPath(80, false, 3), 3);
    assert.equal(sessionsForPath(0, false, 1), 1);
  });

  test('a host that holds every reply gets every session it allows, whatever the path', () => {
    assert.equal(sessionsForPath(0.2, true, 3), 3);
  });

  test('what each MTA allows a client by default; OpenSMTPD keeps no limit; an unnamed server gets the first-contact three', () => {
    assert.deepEqual(
      (['postfix', 'exim', 'exchange', 'haraka', 'opensmtpd', 'sendmail', null] as const).map((family) => sessionCeiling(family)),
      [40, 8, 8, FIRST_CONTACT_SESSIONS, NO_CLIENT_LIMIT_CEILING, FIRST_CONTACT_SESSIONS, FIRST_CONTACT_SESSIONS],
    );
  });

  test('OpenSMTPD behind 80 ms gets the politeness cap, not the first-contact three', () => {
    const allowed = allowedSessions({ open: 0, busy: 0, quitting: 0, target: 10 }, sessionCeiling('opensmtpd'));
    assert.equal(sessionsForPath(80, false, allowed), 10);
  });
});

describe('a slowdown from the first error is a penalised client, not an error limit (host-profile.ts)', () => {
  const learning = (): HostLearning =>
    new HostLearning({ get: () => Promise.resolve(undefined), set: () => Promise.resolve() }, { errorBudget: 8, transactionErrors: 3, sessionRcpts: 20, sessions: 10, rcptLimit: 100, transactions: 10 }, 0);

  test('every reply slow after one error (Haraka karma): the budget stays, every reply is marked slow', () => {
    const l = learning();
    assert.equal(l.slowdownSeen('mx.haraka.test', 1), true);
    assert.deepEqual([l.profile('mx.haraka.test').errorBudget, l.profile('mx.haraka.test').slowEveryReply], [8, true]);
  });

  test('every reply slow after ten errors (Postfix soft limit): the limit is learnt, the budget is eight', () => {
    const l = learning();
    assert.equal(l.slowdownSeen('mx.postfix.test', 10), false, 'already under it');
    assert.equal(l.slowdownSeen('mx.strict.test', 6), true);
    assert.deepEqual([l.profile('mx.strict.test').errorBudget, l.profile('mx.strict.test').slowEveryReply], [4, false]);
  });

  test('a per-connection recipient cap is learnt where the host refused, never raised by trying', () => {
    const l = learning();
    assert.equal(l.sessionRcptsLimited('mx.haraka.test', 12), true);
    assert.equal(l.profile('mx.haraka.test').sessionRcpts, 12);
    assert.equal(l.sessionRcptsLimited('mx.haraka.test', 15), false);
  });
});
