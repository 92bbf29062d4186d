import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type Server, type Socket } from 'node:net';
import { startMailWorld, type MailWorld } from '../../src/mailworld/index.js';
import { CLI_NODE_ARGS, REPO_ROOT } from '../cli-entry.js';

/**
 * `presend check` as a user runs it, against a mail world where one domain's MX host holds the
 * session (no greeting) until the test lets it go: what is already known must be on stdout
 * while that address is still being checked — results stream, they do not wait for the last.
 */
const HELD_IP = '127.0.99.7';

describe('presend check streams its results', () => {
  let world: MailWorld;
  let held: Server;
  const waiting: Socket[] = [];
  /** Held sessions that have ended (the engine gave up on them, or the test let them go). */
  let ended = 0;

  before(async () => {
    world = await startMailWorld({
      hosts: [{ name: 'mx.fast.test' }],
      domains: [
        { name: 'fast.test', mx: [{ host: 'mx.fast.test', preference: 10 }], mailboxes: { alice: 'accept', bob: 'accept' } },
        { name: 'held.test', mx: [{ host: 'mx.held.test', preference: 10 }] },
      ],
      names: [{ name: 'mx.held.test', a: [HELD_IP] }],
    });
    // Accepts and says nothing: the engine waits for a greeting until the test releases it.
    held = createServer((socket) => {
      socket.on('error', () => undefined);
      socket.on('close', () => ended++);
      waiting.push(socket);
    });
    held.listen(world.smtpPort, HELD_IP);
    await once(held, 'listening');
  });
  after(async () => {
    for (const socket of waiting) socket.destroy();
    held.close();
    await world.close();
  });

  /** Starts `presend check ARGS…`; resolves each stdout line as it comes, and the exit. */
  function check(args: string[]) {
    // The engine would wait a minute for the held greeting: only the test's release ends it.
    const env = { ...process.env, ...world.env(), PRESEND_SMTP_TIMEOUT_MS: '60000' };
    const child = spawn(process.execPath, [...CLI_NODE_ARGS, 'check', ...args], { cwd: REPO_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    const lines: string[] = [];
    let partial = '';
    let stderr = '';
    const listeners: Array<() => void> = [];
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      const parts = (partial + chunk).split('\n');
      partial = parts.pop() ?? '';
      lines.push(...parts);
      for (const wake of listeners.splice(0)) wake();
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    let exited: number | null | undefined;
    const exit = once(child, 'close').then(([code]) => {
      exited = code as number | null;
      for (const wake of listeners.splice(0)) wake();
      return exited;
    });
    const linesUntil = async (done: (seen: readonly string[]) => boolean): Promise<readonly string[]> => {
      while (!done(lines) && exited === undefined) await new Promise<void>((resolve) => listeners.push(resolve));
      return lines;
    };
    return { linesUntil, exit, stderr: () => stderr, running: () => exited === undefined };
  }

  /** Lets the held sessions go: the server closes them, so the held address ends (TRANSIENT). */
  async function release(): Promise<void> {
    while (waiting.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    for (const socket of waiting.splice(0)) socket.end();
  }

  // A command that printed nothing before its last result would wait here until the test's timeout.
  test('--jsonl: one line per address as soon as it is known, while a slow host still holds another', { timeout: 30_000 }, async () => {
    const before = ended;
    const run = check(['x@held.test', 'alice@fast.test', 'bob@fast.test', '--jsonl']);
    const seen = await run.linesUntil((lines) => lines.length >= 2);
    assert.ok(run.running() && ended === before, `the command is still checking x@held.test (stderr: ${run.stderr()})`);
    const known = seen.slice(0, 2).map((line) => JSON.parse(line) as { email: string; envelope: { verdict: string } });
    assert.deepEqual(known.map((r) => [r.email, r.envelope.verdict]).sort(), [
      ['alice@fast.test', 'DELIVERABLE'],
      ['bob@fast.test', 'DELIVERABLE'],
    ]);
    await release();
    assert.equal(await run.exit, 0, run.stderr());
    const all = await run.linesUntil(() => false);
    assert.equal(all.filter((line) => line !== '').length, 3);
    assert.equal((JSON.parse(all[2] ?? '{}') as { email: string }).email, 'x@held.test');
  });

  test('the table: the header and the known rows are printed before the slow address is known', { timeout: 30_000 }, async () => {
    const before = ended;
    const run = check(['x@held.test', 'alice@fast.test']);
    const seen = await run.linesUntil((lines) => lines.some((line) => line.startsWith('alice@fast.test')));
    assert.ok(run.running() && ended === before, 'the command is still checking x@held.test');
    assert.match(seen[0] ?? '', /^address\s+verdict\s+decision\s+confidence\s+reasons$/);
    assert.match(seen.find((line) => line.startsWith('alice@')) ?? '', /^alice@fast\.test\s+DELIVERABLE\s+send\s+0\.\d\d\s+smtp_rcpt_accepted/);
    await release();
    assert.equal(await run.exit, 0, run.stderr());
    assert.match((await run.linesUntil(() => false)).join('\n'), /^x@held\.test\s+TRANSIENT\s+recheck_later/m);
  });

  test('--json keeps its one array, in the order given, printed once every address is known', async () => {
    const run = check(['x@held.test', 'alice@fast.test', '--json']);
    await release();
    assert.equal(await run.exit, 0, run.stderr());
    const results = JSON.parse((await run.linesUntil(() => false)).join('\n')) as Array<{ email: string }>;
    assert.deepEqual(results.map((r) => r.email), ['x@held.test', 'alice@fast.test']);
  });

  test('--json and --jsonl together are a usage error (exit 2)', async () => {
    const run = check(['alice@fast.test', '--json', '--jsonl']);
    assert.equal(await run.exit, 2);
    assert.match(run.stderr(), /--json or --jsonl/);
  });
});
