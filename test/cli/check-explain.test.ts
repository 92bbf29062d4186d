/**
 * `presend check --explain` as a user runs it, against a mail world on loopback: under each row
 * the evidence in words (MX hosts, the conversation, the catch-all probe, the reply-table row),
 * and with --json an `evidence` field beside the envelope; without --explain nothing changes.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { defaultWorld, startMailWorld, type MailWorld } from '../../src/mailworld/index.js';
import { CLI_NODE_ARGS, REPO_ROOT } from '../cli-entry.js';
import type { EngineResult } from '../../src/core/types.js';

const run = promisify(execFile);

describe('presend check --explain', () => {
  let world: MailWorld;
  before(async () => {
    world = await startMailWorld(defaultWorld());
  });
  after(() => world.close());

  const check = (args: string[]) =>
    run(process.execPath, [...CLI_NODE_ARGS, 'check', ...args], { cwd: REPO_ROOT, env: { ...process.env, ...world.env(), PRESEND_SMTP_TIMEOUT_MS: '2000' } });

  test('the table shows how each verdict was reached, under its row', async () => {
    const { stdout } = await check(['alice@acme.test', 'nobody@acme.test', 'anyone@catchall.test', '--explain']);
    assert.match(stdout, /alice@acme\.test\s+DELIVERABLE/);
    assert.match(stdout, /Mail servers, in the order they are tried: mx1\.acme\.test \(preference 10, reached at 127\.[\d.]+\), mx2\.acme\.test \(preference 20\)/);
    assert.match(stdout, /> RCPT TO:<alice@acme\.test>/);
    assert.match(stdout, /> RCPT TO:<nobody@acme\.test>/);
    assert.match(stdout, /< 550 /);
    assert.match(stdout, /Decided by the reply to RCPT TO from mx1\.acme\.test: "550 [^"]*", read by the reply-table row \S+ as no mailbox/);
    assert.match(stdout, /Catch-all probe: asked about the made-up address presend-[0-9a-f]+@catchall\.test, answered "250[^"]*"[^:]*: the domain accepts any address/);
    // Each address's block shows its own RCPT only, though the two acme.test addresses may share a session.
    const blocks = stdout.split(/\n(?=\S)/);
    const alice = blocks.find((b) => b.startsWith('alice@acme.test')) ?? '';
    assert.doesNotMatch(alice, /RCPT TO:<nobody@acme\.test>/);
  });

  test('--json carries an evidence field beside the envelope; without --explain it does not', async () => {
    const explained = JSON.parse((await check(['nobody@acme.test', '--explain', '--json'])).stdout) as EngineResult[];
    assert.equal(explained.length, 1);
    assert.ok(explained[0]?.envelope);
    assert.equal(explained[0]?.evidence?.decidedBy?.reply.code, 550);
    assert.equal(explained[0]?.evidence?.decidedBy?.rule?.class, 'no_mailbox');
    const plain = JSON.parse((await check(['nobody@acme.test', '--json'])).stdout) as EngineResult[];
    assert.equal(plain[0]?.evidence, undefined);
    assert.equal(plain[0]?.envelope.verdict, 'UNDELIVERABLE_NO_MAILBOX');
  });
});
