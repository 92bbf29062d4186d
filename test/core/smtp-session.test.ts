import { test, describe, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { ProbeSession, type SessionSettings } from '../../src/core/smtp/session.js';
import { HostQueue, type HostQueueSettings, type HostResult } from '../../src/core/smtp/host-queue.js';
import { DEFAULT_REPLY_LIMITS } from '../../src/core/replies/parse.js';
import { createMemorySessionLimiter } from '../../src/core/limiter.js';
import { defaultScript, startScriptedSmtp, type Script } from './scripted-smtp.js';
import { startSocksProxy } from '../../src/mailworld/index.js';
import { until } from '../until.js';

function settings(port: number, more: Partial<SessionSettings> = {}): SessionSettings {
  return {
    heloName: 'probe.presend.test',
    mailFrom: 'probe@presend.test',
    port,
    stepTimeoutMs: 500,
    sessionMaxMs: 10_000,
    proxy: null,
    useStartTls: true,
    limits: DEFAULT_REPLY_LIMITS,
    ...more,
  };
}

/**
 * The scripted server names no MTA in its banner; these tests are about how sessions carry
 * recipients, at a host that counts errors per session only (no first-contact cap per message).
 */
function queueSettings(port: number, more: Partial<HostQueueSettings> = {}): HostQueueSettings {
  const { useStartTls: _unused, ...session } = settings(port);
  return { session, maxSessions: 1, maxRcptsPerTransaction: 100, maxTransactionsPerSession: 10, sessionIdleMs: 0, maxAttempts: 2, transactionErrors: null, ...more };
}

/** A host queue for the scripted server, one session at a time, closed when the test ends. */
function scriptedQueue(t: TestContext, port: number, more: Partial<HostQueueSettings> = {}): HostQueue {
  const queue = new HostQueue('scripted.test', ['127.0.0.1'], queueSettings(port, more), createMemorySessionLimiter(1), () => undefined);
  t.after(() => queue.close());
  return queue;
}

/** `count` addresses (user0@x.test…) submitted at once; their results in order. */
function submitUsers(queue: HostQueue, count: number): Promise<HostResult[]> {
  return Promise.all(Array.from({ length: count }, (_, i) => queue.submit({ recipient: `user${i}@x.test`, needsUtf8: false })));
}

/** RCPTs of each message (each MAIL FROM) the scripted server took, session after session. */
function rcptsPerMessage(sessions: readonly string[][]): number[] {
  return sessions.flatMap((commands) =>
    commands.join('\n').split(/^MAIL FROM:.*$/m).slice(1).map((tx) => tx.split('\n').filter((c) => c.startsWith('RCPT')).length),
  );
}

const codeOf = (r: HostResult): number | string =>
  r.kind === 'final' ? (r.outcome.kind === 'reply' ? r.outcome.reply.code : r.outcome.kind === 'failure' ? r.outcome.failure.kind : r.outcome.kind) : 'failover';

describe('probe session protocol corners', () => {
  test('a server that refuses EHLO is greeted with HELO (RFC 5321 §3.2)', async (t) => {
    const server = await startScriptedSmtp((line, ctx) => (line.startsWith('EHLO') ? '502 5.5.2 command not recognized' : defaultScript(line, ctx)));
    t.after(() => server.close());
    const opened = await ProbeSession.open('scripted.test', ['127.0.0.1'], settings(server.port));
    assert.ok(opened.ok);
    assert.equal(opened.session.capabilities.pipelining, false);
    const result = await opened.session.transaction(['alice@example.test', 'unknown@example.test'], false);
    assert.deepEqual(result.rcpt.map((r) => r?.code), [250, 550]);
    await opened.session.quit();
    assert.deepEqual(server.sessions[0], [
      'EHLO probe.presend.test',
      'HELO probe.presend.test',
      'MAIL FROM:<probe@presend.test>',
      'RCPT TO:<alice@example.test>',
      'RCPT TO:<unknown@example.test>',
      'QUIT',
    ]);
  });

  test('with PIPELINING the MAIL and RCPT commands go out together and replies are matched in order', async (t) => {
    const server = await startScriptedSmtp(defaultScript);
    t.after(() => server.close());
    const opened = await ProbeSession.open('scripted.test', ['127.0.0.1'], settings(server.port));
    assert.ok(opened.ok);
    const first = await opened.session.transaction(['a@x.test', 'unknown1@x.test', 'b@x.test'], false);
    assert.deepEqual(first.rcpt.map((r) => r?.code), [250, 550, 250]);
    const second = await opened.session.transaction(['unknown2@x.test'], true);
    assert.deepEqual(second.rcpt.map((r) => r?.code), [550]);
    await opened.session.quit();
    const commands = server.sessions[0] ?? [];
    assert.ok(commands.includes('RSET'), 'RSET between transactions');
    assert.ok(commands.includes('MAIL FROM:<probe@presend.test> SMTPUTF8'));
    assert.ok(!commands.includes('DATA'));
  });

  test('a server that closes with 421 in the middle of a batch gets the rest in a new session', async (t) => {
    const server = await startScriptedSmtp((line, ctx) =>
      line.startsWith('RCPT') && ctx.session === 0 && ctx.rcptsInTransaction > 3 ? '421 4.7.0 too many, closing' : defaultScript(line, ctx),
    );
    t.after(() => server.close());
    const queue = scriptedQueue(t, server.port);
    const recipients = Array.from({ length: 10 }, (_, i) => (i % 2 ? `unknown${i}@x.test` : `user${i}@x.test`));
    const results = await Promise.all(recipients.map((recipient) => queue.submit({ recipient, needsUtf8: false })));
    assert.deepEqual(results.map(codeOf), recipients.map((r) => (r.startsWith('unknown') ? 550 : 250)));
    // The first session met the 421; the rest went to new ones (as many as first contact's
    // worst-case groups take: nine errors at most per session until the host's share is known).
    assert.ok(server.sessions.length >= 2 && server.sessions.length <= 3, `${server.sessions.length} sessions`);
  });

  test('a 421 sent unasked right after a repeated EHLO (Postfix junk limit in stress mode) closes the session: the group is used, not read as out of step', async (t) => {
    // Postfix counts EHLO against smtpd_junk_command_limit (1 in stress mode): the third
    // greeting of a session is an error, and at the hard limit (1) smtpd answers the EHLO, then
    // says 421 before reading anything more, and closes (measured on Postfix 3.7).
    const greetings = new Map<number, number>();
    const server = await startScriptedSmtp((line, ctx) => {
      if (!line.startsWith('EHLO')) return defaultScript(line, ctx);
      const n = (greetings.get(ctx.session) ?? 0) + 1;
      greetings.set(ctx.session, n);
      const reply = defaultScript(line, ctx) as string[];
      return n >= 3 ? [...reply, '421 4.7.0 scripted.test Error: too many errors'] : reply;
    });
    t.after(() => server.close());
    const queue = scriptedQueue(t, server.port, { maxRcptsPerTransaction: 4 });
    assert.deepEqual((await submitUsers(queue, 16)).map(codeOf), Array.from({ length: 16 }, () => 250));
    const rcpts = server.sessions.flat().filter((c) => c.startsWith('RCPT')).length;
    assert.equal(rcpts, 16, 'each recipient asked once: the answers before the 421 were in step');
    // The lesson: at most two greetings per session from then on (the session that met the 421 aside).
    assert.ok(server.sessions.slice(1).every((commands) => commands.filter((c) => c.startsWith('EHLO')).length <= 2), JSON.stringify(server.sessions));
  });

  test('a server without PIPELINING that refuses a repeated EHLO (OpenSMTPD): one session asks in several lockstep groups, RSET between them, every answer kept', async (t) => {
    // OpenSMTPD 6.8 answers a second EHLO "503 5.5.1 Invalid command: Already identified": a group
    // ended by EHLO there was thrown away as out of step and the host marked strict.
    const server = await startScriptedSmtp((line, ctx) => {
      if (line.startsWith('EHLO')) return ctx.greeted ? '503 5.5.1 Invalid command: Already identified' : ((ctx.greeted = true), ['250-scripted.test', '250 SMTPUTF8']);
      return defaultScript(line, ctx);
    });
    t.after(() => server.close());
    const queue = scriptedQueue(t, server.port, { maxRcptsPerTransaction: 4 });
    const recipients = Array.from({ length: 12 }, (_, i) => (i % 4 === 3 ? `unknown${i}@x.test` : `user${i}@x.test`));
    const results = await Promise.all(recipients.map((recipient) => queue.submit({ recipient, needsUtf8: false })));
    assert.deepEqual(results.map(codeOf), recipients.map((r) => (r.startsWith('unknown') ? 550 : 250)));
    assert.equal(server.sessions.length, 1, JSON.stringify(server.sessions));
    const commands = server.sessions[0] ?? [];
    assert.equal(commands.filter((c) => c.startsWith('EHLO')).length, 1, 'greeted once');
    assert.equal(commands.filter((c) => c === 'RSET').length, 2, 'three groups of four, RSET between them');
    assert.equal(commands.filter((c) => c.startsWith('RCPT')).length, recipients.length, 'each recipient asked once');
  });

  test('a lockstep session goes on in one message; a 452 4.5.3 there teaches the whole message\'s count, not the last group\'s', async (t) => {
    // No PIPELINING offered, and a per-message limit of 6: the second group of 4, going on in the
    // message opened by the first, gets two 250s and two 452s — the limit is 6, not 2.
    const server = await startScriptedSmtp((line, ctx) => {
      if (line.startsWith('EHLO')) return ['250-scripted.test', '250 SMTPUTF8'];
      if (line.startsWith('RCPT') && ctx.rcptsInTransaction > 6) return '452 4.5.3 Too many recipients';
      return defaultScript(line, ctx);
    });
    t.after(() => server.close());
    const queue = scriptedQueue(t, server.port, { maxAttempts: 5 });
    assert.deepEqual((await submitUsers(queue, 16)).map(codeOf), Array.from({ length: 16 }, () => 250));
    const messages = rcptsPerMessage(server.sessions);
    assert.ok((messages[0] ?? 0) > 4, `the first message went on past its first group: ${messages.join(', ')}`);
    assert.ok(messages.slice(1).every((n) => n <= 6), `messages after the first keep to 6: ${messages.join(', ')}`);
    assert.ok(messages.slice(1, -1).every((n) => n > 2), `the limit learnt is the message's 6, not the group's 2: ${messages.join(', ')}`);
  });

  test('groups the host cut after answering part of them are progress: they do not use up the refusal budget', async (t) => {
    // Two sessions in a row answer three RCPTs, then close with a 421 (a limit not yet learnt):
    // everyone in those groups is asked again. With one refusal allowed per recipient
    // (maxRequeues 1), counting those cuts as refusals ended the later recipients TRANSIENT.
    const server = await startScriptedSmtp((line, ctx) =>
      line.startsWith('RCPT') && ctx.session < 2 && ctx.rcptsInTransaction > 3 ? '421 4.3.2 scripted.test Service shutting down' : defaultScript(line, ctx),
    );
    t.after(() => server.close());
    const queue = scriptedQueue(t, server.port, { maxRequeues: 1, backoffMs: 10, maxBackoffMs: 20 });
    const recipients = Array.from({ length: 10 }, (_, i) => (i % 2 ? `unknown${i}@x.test` : `user${i}@x.test`));
    const results = await Promise.all(recipients.map((recipient) => queue.submit({ recipient, needsUtf8: false })));
    assert.deepEqual(results.map(codeOf), recipients.map((r) => (r.startsWith('unknown') ? 550 : 250)));
    assert.ok(server.sessions.length >= 3, `${server.sessions.length} sessions`);
  });

  test('a session is over once QUIT is sent: the next session of the host does not wait for the 221', async (t) => {
    // One session at a time; the first session's 221 comes late. The slot is free as soon as
    // QUIT is written (the server ends the session on reading it), so new work opens the next
    // session at once instead of one (here slow) round trip later; quit() waits up to 1 s for it.
    const server = await startScriptedSmtp((line, ctx) => (line === 'QUIT' && ctx.session === 0 ? { delayMs: 1500, reply: '221 bye' } : defaultScript(line, ctx)));
    t.after(() => server.close());
    const base = queueSettings(server.port);
    // A near path, as loopback is: the engine measures the path with this clock, and on a path it
    // measures far (≥ 5 ms, session-count.ts FAR_PATH_MS) it rightly counts a quitting session
    // against the host's limit until its 221. A loaded machine once measured loopback that slow
    // and failed this test; a clock that stands still pins what is under test, the near path.
    const queue = scriptedQueue(t, server.port, { session: { ...base.session, stepTimeoutMs: 3000, now: () => 0 } });
    const first = await Promise.all(['a@x.test', 'unknown@x.test'].map((recipient) => queue.submit({ recipient, needsUtf8: false })));
    assert.deepEqual(first.map(codeOf), [250, 550]);
    await until('the first session sends QUIT', () => server.sessions[0]?.includes('QUIT') ?? false, 30_000, 5);
    const started = Date.now();
    const second = await queue.submit({ recipient: 'b@x.test', needsUtf8: false });
    const waited = Date.now() - started;
    assert.equal(codeOf(second), 250);
    assert.equal(server.sessions.length, 2);
    assert.ok(waited < 500, `the next session waited ${waited} ms for the last one's 221`);
  });

  test('452 too many recipients: the rest go in later transactions of no more than what the server took', async (t) => {
    const server = await startScriptedSmtp((line, ctx) =>
      line.startsWith('RCPT') && ctx.rcptsInTransaction > 4 ? '452 4.5.3 Too many recipients' : defaultScript(line, ctx),
    );
    t.after(() => server.close());
    const queue = scriptedQueue(t, server.port, { maxAttempts: 5 });
    assert.deepEqual((await submitUsers(queue, 12)).map(codeOf), Array.from({ length: 12 }, () => 250));
    // The first group (QUIT pipelined behind it) learns the limit; every later transaction keeps to it.
    const transactions = rcptsPerMessage(server.sessions);
    assert.ok((transactions[0] ?? 0) > 4, `first transaction: ${transactions[0]}`);
    assert.ok(transactions.slice(1).every((n) => n <= 4), `transactions after the first: ${transactions.slice(1).join(', ')}`);
    assert.ok(server.sessions.length <= 2, `${server.sessions.length} sessions`);
  });

  test('recipients are split into transactions of at most maxRcptsPerTransaction, each ended by an EHLO that checks its replies', async (t) => {
    const server = await startScriptedSmtp(defaultScript);
    t.after(() => server.close());
    const queue = scriptedQueue(t, server.port, { maxRcptsPerTransaction: 4 });
    await Promise.all(Array.from({ length: 10 }, (_, i) => queue.submit({ recipient: `u${i}@x.test`, needsUtf8: false })));
    const commands = server.sessions.flat();
    assert.equal(commands.filter((c) => c.startsWith('MAIL')).length, 3);
    // RFC 5321 §4.1.4: a repeated EHLO resets the transaction as RSET does, and its reply can
    // only be EHLO's: every group ends with one, so no RSET is needed.
    const groups = commands.join('\n').split(/^MAIL FROM:.*$/m).slice(1);
    assert.ok(groups.every((g) => /RCPT TO:.*\n(EHLO|QUIT)/.test(g)), commands.join(' | '));
    assert.equal(commands.filter((c) => c === 'RSET').length, 0);
  });

  test('replies that each come just inside the step timeout still cannot outlive the session deadline', async (t) => {
    const server = await startScriptedSmtp((line, ctx) => (line.startsWith('RCPT') ? { delayMs: 150, reply: '250 ok' } : defaultScript(line, ctx)));
    t.after(() => server.close());
    const opened = await ProbeSession.open('scripted.test', ['127.0.0.1'], settings(server.port, { stepTimeoutMs: 300, sessionMaxMs: 700 }));
    assert.ok(opened.ok);
    const result = await opened.session.transaction(
      Array.from({ length: 20 }, (_, i) => `u${i}@x.test`),
      false,
    );
    assert.equal(result.failure?.kind, 'timeout');
    assert.ok(result.rcpt.filter((r) => r !== undefined).length < 20);
  });

  test('a server that says nothing at all costs one step timeout', async (t) => {
    const silent: Script = (line, ctx) => (line === 'CONNECT' ? { delayMs: 1500, reply: '220 late' } : defaultScript(line, ctx));
    const server = await startScriptedSmtp(silent);
    t.after(() => server.close());
    const opened = await ProbeSession.open('scripted.test', ['127.0.0.1'], settings(server.port, { stepTimeoutMs: 200 }));
    assert.equal(opened.ok, false);
    assert.deepEqual(!opened.ok && [opened.failure.kind, opened.failure.step], ['timeout', 'banner']);
  });
});

describe('SOCKS5 proxy (PRESEND_SMTP_PROXY)', () => {
  test('probes go through the proxy with its credentials, to the resolved IP', async (t) => {
    const server = await startScriptedSmtp(defaultScript);
    const proxy = await startSocksProxy({ auth: { username: 'probe', password: 's3cret' } });
    t.after(async () => {
      await proxy.close();
      await server.close();
    });
    const opened = await ProbeSession.open(
      'scripted.test',
      ['127.0.0.1'],
      settings(server.port, { proxy: { host: '127.0.0.1', port: proxy.port, userId: 'probe', password: 's3cret' } }),
    );
    assert.ok(opened.ok);
    const result = await opened.session.transaction(['alice@x.test'], false);
    assert.equal(result.rcpt[0]?.code, 250);
    await opened.session.quit();
    assert.deepEqual(proxy.connects, [{ user: 'probe', password: 's3cret', host: '127.0.0.1', port: server.port }]);
  });

  test('probes leave from the egress route\'s source address, directly and to the proxy', async (t) => {
    const server = await startScriptedSmtp(defaultScript);
    const proxy = await startSocksProxy({});
    t.after(async () => {
      await proxy.close();
      await server.close();
    });
    const direct = await ProbeSession.open('scripted.test', ['127.0.0.1'], settings(server.port, { localAddress: '127.0.0.7' }));
    assert.ok(direct.ok);
    await direct.session.quit();
    const proxied = await ProbeSession.open('scripted.test', ['127.0.0.1'], settings(server.port, { localAddress: '127.0.0.8', proxy: { host: '127.0.0.1', port: proxy.port } }));
    assert.ok(proxied.ok);
    await proxied.session.quit();
    // The proxy connects onward from its own address; the route's source is where the proxy saw the prober come from.
    assert.deepEqual(server.clients, ['127.0.0.7', '127.0.0.1']);
    assert.deepEqual(proxy.clients, ['127.0.0.8']);
  });

  test('a proxy that is down is a connection failure, not a crash', async () => {
    const opened = await ProbeSession.open('scripted.test', ['127.0.0.1'], settings(25, { proxy: { host: '127.0.0.1', port: 1 } }));
    assert.equal(opened.ok, false);
  });
});
