import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { CLI_NODE_ARGS } from '../cli-entry.js';
import { defaultWorld } from '../../src/mailworld/index.js';
import { startEngineWorld } from './world-engine.js';
import { until } from '../until.js';

describe('engine lifecycle', () => {
  test('an aborted check ends at once as a TRANSIENT non-verdict, even with the probe in flight', async (t) => {
    const ew = await startEngineWorld(defaultWorld(), { smtpTimeoutMs: 5000 });
    t.after(() => ew.close());
    const controller = new AbortController();
    const pending = ew.engine.verify('alice@tarpit.test', { signal: controller.signal });
    setTimeout(() => controller.abort(), 100);
    const result = await pending;
    assert.equal(result.envelope.verdict, 'TRANSIENT');
    assert.deepEqual(result.envelope.reasons, ['aborted']);
  });

  test("a check's abort ends it while its DNS lookup is still unanswered (a DNS server that never answers)", async (t) => {
    const ew = await startEngineWorld(defaultWorld());
    t.after(() => ew.close());
    // A UDP socket that reads every query and answers none.
    const silent = createSocket('udp4');
    await new Promise<void>((resolve) => silent.bind(0, '127.0.0.1', resolve));
    t.after(() => silent.close());
    const engine = ew.another({ dnsServers: [{ host: '127.0.0.1', port: silent.address().port }], dnsTimeoutMs: 30_000 });
    const controller = new AbortController();
    const pending = engine.verify('alice@acme.test', { signal: controller.signal });
    setTimeout(() => controller.abort(), 100);
    const result = await Promise.race([pending, new Promise<null>((resolve) => setTimeout(() => resolve(null), 10_000).unref())]);
    assert.ok(result, 'the check ended when aborted, not when the lookup would have timed out (30 s)');
    assert.deepEqual([result.envelope.verdict, result.envelope.reasons], ['TRANSIENT', ['aborted']]);
  });

  test('an aborted batch answers every unfinished address as aborted at once, and nothing after', async (t) => {
    const ew = await startEngineWorld(defaultWorld(), { smtpTimeoutMs: 5000 });
    t.after(() => ew.close());
    const controller = new AbortController();
    const results: Array<{ input: string; reasons: readonly string[]; verdict: string | null }> = [];
    let resolveSome: () => void = () => undefined;
    const someIn = new Promise<void>((resolve) => (resolveSome = resolve));
    const addresses = ['alice@acme.test', 'nobody@acme.test', 'x@gone.test', 'a@tarpit.test', 'b@tarpit.test', 'not an address'];
    const run = ew.engine.verifyMany(
      addresses,
      (r) => {
        results.push({ input: r.input, reasons: r.envelope.reasons, verdict: r.envelope.verdict });
        if (results.length === 4) resolveSome();
      },
      { signal: controller.signal },
    );
    await someIn; // acme, gone and the syntax error are in; the tarpit hangs
    controller.abort();
    await run;
    assert.deepEqual(results.map((r) => r.input).sort(), [...addresses].sort(), 'every address answered once');
    const byInput = new Map(results.map((r) => [r.input, r]));
    assert.equal(byInput.get('alice@acme.test')?.verdict, 'DELIVERABLE');
    assert.equal(byInput.get('x@gone.test')?.verdict, 'UNDELIVERABLE_NO_MAIL_SERVER');
    for (const tarpit of ['a@tarpit.test', 'b@tarpit.test']) assert.deepEqual([byInput.get(tarpit)?.verdict, byInput.get(tarpit)?.reasons], ['TRANSIENT', ['aborted']]);
    const answered = results.length;
    // Kept: an absence (no report after the abort answered) can only be watched over a window of time.
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(results.length, answered, 'nothing is reported after the abort answered');
  });

  test('close() ends waiting checks, QUITs idle sessions, and later checks are aborted', async (t) => {
    const ew = await startEngineWorld(defaultWorld(), { sessionIdleMs: 5000 });
    t.after(() => ew.close());
    assert.equal((await ew.engine.verify('alice@acme.test')).envelope.verdict, 'DELIVERABLE');
    assert.equal(ew.world.recorder.openSessions('mx1.acme.test'), 1, 'the session lingers for more work');
    await ew.engine.close();
    await until('the world sees the idle session end', () => ew.world.recorder.openSessions('mx1.acme.test') === 0);
    const quits = ew.world.recorder.sessions('mx1.acme.test').flatMap((s) => s.commands).filter((c) => c.command === 'QUIT');
    assert.equal(quits.length, 1);
    assert.deepEqual((await ew.engine.verify('bob.smith@acme.test')).envelope.reasons, ['aborted']);
  });

  test('a lingering session serves the next check without a new connection', async (t) => {
    const ew = await startEngineWorld(defaultWorld(), { sessionIdleMs: 2000 });
    t.after(() => ew.close());
    await ew.engine.verify('alice@acme.test');
    await ew.engine.verify('nobody@acme.test');
    await ew.engine.verify('bob.smith@acme.test');
    assert.equal(ew.world.recorder.sessionCount('mx1.acme.test'), 1);
  });
});

function runCli(args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...CLI_NODE_ARGS, ...args], {
      env: { ...process.env, ...env, PRESEND_HELO_NAME: env.PRESEND_HELO_NAME ?? '', PRESEND_MAIL_FROM: env.PRESEND_MAIL_FROM ?? '' },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('presend check', () => {
  test('prints the engine results as JSON and exits 0', async (t) => {
    const ew = await startEngineWorld(defaultWorld());
    t.after(() => ew.close());
    const run = await runCli(['check', 'alice@acme.test', 'nobody@acme.test', 'x@gone.test', '--json'], ew.world.env());
    assert.equal(run.code, 0, run.stderr);
    const results = JSON.parse(run.stdout) as Array<{ email: string; envelope: { verdict: string } }>;
    assert.deepEqual(
      results.map((r) => [r.email, r.envelope.verdict]),
      [
        ['alice@acme.test', 'DELIVERABLE'],
        ['nobody@acme.test', 'UNDELIVERABLE_NO_MAILBOX'],
        ['x@gone.test', 'UNDELIVERABLE_NO_MAIL_SERVER'],
      ],
    );
  });

  test('prints a readable table', async (t) => {
    const ew = await startEngineWorld(defaultWorld());
    t.after(() => ew.close());
    const run = await runCli(['check', 'info@acme.test'], ew.world.env());
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /^address\s+verdict\s+decision\s+confidence\s+reasons/);
    assert.match(run.stdout, /info@acme\.test\s+ROLE\s+send_with_caution\s+0\.90\s+role_account/);
  });

  test('names the variables to set when HELO name and sender are missing', async (t) => {
    const ew = await startEngineWorld(defaultWorld());
    t.after(() => ew.close());
    const env = { ...ew.world.env(), PRESEND_HELO_NAME: '', PRESEND_MAIL_FROM: '' };
    const run = await runCli(['check', 'alice@acme.test'], env);
    assert.equal(run.code, 0);
    assert.match(run.stderr, /PRESEND_HELO_NAME/);
    assert.match(run.stderr, /PRESEND_MAIL_FROM/);
    assert.match(run.stdout, /probe_not_configured/);
    assert.equal(ew.world.recorder.sessionCount(), 0);
  });

  test('exits 2 without an address', async () => {
    const run = await runCli(['check'], {});
    assert.equal(run.code, 2);
  });
});
