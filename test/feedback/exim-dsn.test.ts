/**
 * Bounces a real Exim writes: the sender's Exim (test/realmta/exim-relay.ts) relays two messages
 * to the test bed's Exim (test/realmta/exim-bed.ts), which refuses both recipients at RCPT
 * (`550 Unknown user`); the sender's Exim then makes its own RFC 3464 reports and delivers them
 * into the sender's Maildir. `presend feedback import` of that Maildir (the CLI, on a SQLite
 * store) must record both as hard bounces, once however often it runs, and a check of each
 * answers UNDELIVERABLE_BOUNCED. The recorded reports of test/feedback/fixtures/ stay for the
 * parser's own tests; this is the same path with a bounce nobody wrote by hand.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eximUnavailable, startExim } from '../realmta/exim-bed.js';
import type { MtaBed } from '../realmta/bed.js';
import { startEximRelay } from '../realmta/exim-relay.js';
import type { EximRelay } from '../realmta/exim-relay.js';
import { presend } from '../service/processes.js';
import { openBackend } from '../../src/store/open-backend.js';
import { readFeedback } from '../../src/service/feedback/check-feedback.js';
import { until } from '../until.js';

const unavailable = eximUnavailable();
// CI (.ci/run) installs Exim and sets PRESEND_REQUIRE_REAL_MTA: there a missing Exim is a failure, not a skip.
if (unavailable && process.env.PRESEND_REQUIRE_REAL_MTA === '1') throw new Error(`the real-MTA tests must run here, but ${unavailable}`);

const UNKNOWN = ['nobody@bed.test', 'former.staff@bed.test'];
let bed: MtaBed;
let relay: EximRelay;
let dir = '';
let env: Record<string, string>;

before(async () => {
  if (unavailable) return;
  bed = await startExim({ ip: '127.0.78.9', domains: ['bed.test'], recipients: ['anna@bed.test'] });
  relay = startEximRelay({ bed, bedDomains: ['bed.test'], sender: 'sender@sender.test' });
  dir = mkdtempSync(join(tmpdir(), 'presend-exim-dsn-'));
  env = { PRESEND_DATABASE_URL: `sqlite:${join(dir, 'p.db')}` };
  assert.equal((await presend(['accounts', 'create', 'sender', '--credits', '0'], env)).code, 0);
});

after(async () => {
  if (unavailable) return;
  relay.stop();
  await bed.stop();
  rmSync(dir, { recursive: true, force: true });
});

test("Exim's own bounces of recipients the bed's Exim refused import as hard bounces once, and the checks answer UNDELIVERABLE_BOUNCED", { skip: unavailable ?? false }, async () => {
  for (const [i, to] of UNKNOWN.entries()) await relay.send(to, `m${i}`);
  // Exim delivers from a process of its own after the submission returns.
  const files = await until(
    () => `two bounces delivered; relay log:\n${relay.log()}\nbed log:\n${bed.log()}`,
    () => relay.bounces().length >= 2 && relay.bounces(),
  );
  assert.equal(files.length, 2);
  for (const f of files) {
    const text = readFileSync(f, 'utf8');
    assert.match(text, /report-type=delivery-status/);
    assert.match(text, /Diagnostic-Code: smtp; 550 Unknown user/, 'the bed\'s own refusal, carried by the report');
  }
  assert.match(bed.log(), /rejected RCPT <nobody@bed.test>: Unknown user/);
  await bed.settle();
  assert.equal(bed.queuedFiles(), 0, 'the bed took nothing');

  const first = await presend(['feedback', 'import', relay.maildir, '--account', 'sender', '--json'], env);
  assert.equal(first.code, 0, first.stderr);
  const imported = JSON.parse(first.stdout) as { import: { events: number; duplicates: number; rejected: number; state: string } };
  assert.deepEqual([imported.import.events, imported.import.duplicates, imported.import.rejected, imported.import.state], [2, 0, 0, 'completed']);
  const again = await presend(['feedback', 'import', relay.maildir, '--account', 'sender', '--json'], env);
  const reimported = JSON.parse(again.stdout) as { import: { events: number; duplicates: number } };
  assert.deepEqual([reimported.import.events, reimported.import.duplicates], [0, 2], 'a second run records nothing again');

  const backend = await openBackend(env.PRESEND_DATABASE_URL as string);
  try {
    const account = await backend.accounts.findAccountByName('sender');
    assert.ok(account);
    for (const email of UNKNOWN) {
      const record = await backend.feedback.address(account.id, email);
      assert.equal(record.history?.lastHardBounce?.source, 'dsn', email);
      assert.equal(record.history?.lastHardBounce?.code, '5.0.0', "Exim's Status for a refusal at the remote RCPT");
      assert.equal(record.history?.softBounces, null);
      const view = await readFeedback(backend.feedback, [{ accountId: account.id, email }], new Date());
      assert.equal(view.answer({ accountId: account.id, email })?.envelope.verdict, 'UNDELIVERABLE_BOUNCED', email);
    }
    assert.equal((await backend.feedback.address(account.id, 'anna@bed.test')).history, null, 'nothing was sent to the known mailbox');
  } finally {
    await backend.close();
  }
});
