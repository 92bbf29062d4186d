/**
 * Feedback files in: RFC 3464 reports in the formats Postfix and Exim write them (recorded
 * fixtures, after each MTA's documented format; test/feedback/postfix-dsn.test.ts makes a real
 * Postfix produce its own), read from an .eml, an mbox and a Maildir; the plain CSV with its bad
 * rows reported by line; and `presend feedback import` killed with SIGKILL mid-way, then run
 * again: every event recorded exactly once, nothing half-imported.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { readDsn } from '../../src/feedback/dsn.js';
import { bounceKind } from '../../src/feedback/bounce-kind.js';
import { readCsvEvents } from '../../src/feedback/csv-events.js';
import { piecesOf } from '../../src/service/feedback/feedback-import.js';
import { exited, presend, spawnCli } from '../service/processes.js';

const FIXTURES = new URL('./fixtures/', import.meta.url);
const fixture = (name: string): Buffer => readFileSync(new URL(name, FIXTURES));

let dir: string;
before(() => {
  dir = mkdtempSync(join(tmpdir(), 'presend-feedback-import-'));
});
after(() => rmSync(dir, { recursive: true, force: true }));

test("Postfix's report of an unknown user (550 5.1.1 at RCPT) is a hard bounce with its status and the report's date", async () => {
  const read = await readDsn(fixture('postfix-unknown-user.eml'), 'x');
  assert.ok(read.ok);
  assert.equal(read.events.length, 1);
  const [e] = read.events;
  assert.deepEqual({ email: e?.email, kind: e?.kind, code: e?.code, at: e?.at }, { email: 'nobody@example.net', kind: 'hard_bounce', code: '5.1.1', at: '2026-11-24T10:00:01.000Z' });
});

test("Postfix's own virtual(8) bounce (Diagnostic-Code: X-Postfix) is a hard bounce from its Status", async () => {
  const read = await readDsn(fixture('postfix-virtual-unknown-user.eml'), 'x');
  assert.ok(read.ok);
  assert.deepEqual(read.events.map((e) => [e.email, e.kind, e.code]), [['nobody@bounce.test', 'hard_bounce', '5.1.1']]);
});

test("Exim's report (Status 5.0.0) is read through the reply table: the remote 550 5.1.1 makes it hard", async () => {
  const read = await readDsn(fixture('exim-unknown-user.eml'), 'x');
  assert.ok(read.ok);
  assert.deepEqual(read.events.map((e) => [e.email, e.kind, e.code, e.at]), [['gone.person@example.net', 'hard_bounce', '5.0.0', '2026-11-24T11:20:05.000Z']]);
});

test("Exim's delay warning (Action: delayed) is a soft bounce", async () => {
  const read = await readDsn(fixture('exim-delayed.eml'), 'x');
  assert.ok(read.ok);
  assert.deepEqual(read.events.map((e) => [e.email, e.kind]), [['busy@example.net', 'soft_bounce']]);
});

test('a policy block (554 5.7.1, Spamhaus) is soft: it says nothing against the address', async () => {
  const read = await readDsn(fixture('postfix-policy-block.eml'), 'x');
  assert.ok(read.ok);
  assert.deepEqual(read.events.map((e) => [e.email, e.kind, e.code]), [['someone@strict.example', 'soft_bounce', '5.7.1']]);
});

test('a message that is not a delivery status report is refused, not guessed at', async () => {
  const read = await readDsn(fixture('not-a-report.eml'), 'x');
  assert.equal(read.ok, false);
});

test('hard or soft from status and diagnostic, table-driven', () => {
  const cases: Array<[string | null, string | null, string]> = [
    ['5.1.1', null, 'hard_bounce'],
    ['5.1.10', null, 'hard_bounce'],
    ['5.2.1', null, 'hard_bounce'],
    ['5.4.4', null, 'hard_bounce'],
    ['5.2.2', null, 'soft_bounce'],
    ['5.7.1', null, 'soft_bounce'],
    ['5.3.4', null, 'soft_bounce'],
    ['4.4.1', null, 'soft_bounce'],
    ['5.0.0', 'smtp; 552 5.2.2 Mailbox full', 'soft_bounce'],
    ['5.0.0', 'smtp; 550 5.7.1 Message rejected as spam', 'soft_bounce'],
    ['5.0.0', 'smtp; 550 No such user here', 'hard_bounce'],
    [null, '550 5.1.1 user unknown', 'hard_bounce'],
  ];
  for (const [status, diagnostic, kind] of cases) assert.equal(bounceKind(status, diagnostic), kind, `${status} / ${diagnostic}`);
});

test('an mbox (with a >From line inside a body) and a Maildir give every report with its position; the human mail is reported', async () => {
  const quoted = fixture('exim-unknown-user.eml').toString('latin1').replace('Hello.', 'Hello.\n>From the desk of the sender');
  const mbox = [
    `From MAILER-DAEMON Tue Nov 24 10:00:01 2026\n${fixture('postfix-unknown-user.eml').toString('latin1')}`,
    `From MAILER-DAEMON Tue Nov 24 11:20:05 2026\n${quoted}`,
    `From someone@example.org Wed Nov 25 09:00:00 2026\n${fixture('not-a-report.eml').toString('latin1')}`,
  ].join('\n');
  writeFileSync(join(dir, 'bounces.mbox'), mbox);
  const pieces = [];
  for await (const p of piecesOf(join(dir, 'bounces.mbox'), 'dsn')) pieces.push(p);
  assert.deepEqual(
    pieces.map((p) => ('events' in p ? p.events.map((e) => e.email) : p.problem.slice(0, 20))),
    [['nobody@example.net'], ['gone.person@example.net'], 'not a delivery statu'],
  );
  assert.match(pieces[2]?.where ?? '', /bounces\.mbox:\d+$/);
  const maildir = join(dir, 'Maildir');
  for (const sub of ['cur', 'new', 'tmp']) mkdirSync(join(maildir, sub), { recursive: true });
  writeFileSync(join(maildir, 'new', '1.host'), fixture('exim-delayed.eml'));
  writeFileSync(join(maildir, 'cur', '2.host:2,S'), fixture('postfix-policy-block.eml'));
  const fromMaildir = [];
  for await (const p of piecesOf(maildir, 'dsn')) fromMaildir.push(p);
  assert.deepEqual(fromMaildir.map((p) => ('events' in p ? p.events[0]?.email : p.problem)), ['someone@strict.example', 'busy@example.net']);
});

test('the CSV: events with or without a header, bad rows named by their line', async () => {
  const csv = join(dir, 'events.csv');
  writeFileSync(
    csv,
    [
      'email,event,date,diagnostic',
      'A@Example.COM,delivery,2026-11-01T00:00:00Z,',
      'not-an-address,hard_bounce,2026-11-01,',
      'b@example.com,bounce,2026-11-02,550 5.1.1 user unknown',
      'c@example.com,bounce,2026-11-02,4.2.2',
      'd@example.com,opened,2026-11-02,',
      '',
      'e@example.com,spam,yesterday,',
      'f@example.com,complaint,2026-11-03T10:00:00+01:00,',
      '',
    ].join('\n'),
  );
  const rows = [];
  for await (const r of readCsvEvents({ path: csv })) rows.push('event' in r ? [r.line, r.event.email, r.event.kind, r.event.code, r.event.at] : [r.line, r.problem.split(':')[0]]);
  assert.deepEqual(rows, [
    [2, 'A@example.com', 'delivery', null, '2026-11-01T00:00:00.000Z'],
    [3, 'not an email address'],
    [4, 'b@example.com', 'hard_bounce', '5.1.1', '2026-11-02T00:00:00.000Z'],
    [5, 'c@example.com', 'soft_bounce', '4.2.2', '2026-11-02T00:00:00.000Z'],
    [6, 'unknown event "opened" (hard_bounce, soft_bounce, bounce, delivery or complaint)'],
    [8, 'not a date'],
    [9, 'f@example.com', 'complaint', null, '2026-11-03T09:00:00.000Z'],
  ]);
  const bare = join(dir, 'bare.csv');
  writeFileSync(bare, 'x@example.com,hard_bounce,2026-11-05\n');
  const bareRows = [];
  for await (const r of readCsvEvents({ path: bare })) bareRows.push('event' in r ? r.event.kind : r.problem);
  assert.deepEqual(bareRows, ['hard_bounce']);
});

test('presend feedback import killed with SIGKILL mid-way, then run again, records every event exactly once', async () => {
  const ROWS = 60_000;
  const dbPath = join(dir, 'crash.db');
  // Events of fixed dates: kept (and taken) for a century, so the test does not age out of the retention.
  const env = { PRESEND_DATABASE_URL: `sqlite:${dbPath}`, PRESEND_FEEDBACK_EVENTS_RETENTION_DAYS: '36500' };
  assert.equal((await presend(['accounts', 'create', 'acme', '--credits', '0'], env)).code, 0);
  const csv = join(dir, 'many.csv');
  writeFileSync(csv, `email,event,date\n${Array.from({ length: ROWS }, (_, i) => `person${i}@example${i % 50}.com,hard_bounce,2026-11-01T00:00:${String(i % 60).padStart(2, '0')}Z`).join('\n')}\n`);
  const count = (sql: string): number => {
    const db = new Database(dbPath, { readonly: true, fileMustExist: true });
    try {
      return (db.prepare(sql).get() as { n: number }).n;
    } catch {
      return 0;
    } finally {
      db.close();
    }
  };
  const importing = spawnCli(['feedback', 'import', csv, '--account', 'acme'], env);
  const deadline = Date.now() + 120_000;
  while (count('SELECT COUNT(*) AS n FROM feedback_events') < 2_000) {
    assert.ok(Date.now() < deadline, 'the import never started');
    assert.equal(importing.exitCode, null, 'the import ended before it could be killed');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  importing.kill('SIGKILL');
  await exited(importing);
  const partial = count('SELECT COUNT(*) AS n FROM feedback_events');
  assert.ok(partial < ROWS, `killed before its end (${partial} of ${ROWS})`);
  // Whole chunks only: every recorded event has its address's summary, and the import's count agrees.
  assert.equal(partial % 500, 0, 'chunks are whole');
  assert.equal(count('SELECT COUNT(*) AS n FROM address_feedback'), partial);
  assert.equal(count('SELECT SUM(events) AS n FROM feedback_imports'), partial);
  const rerun = await presend(['feedback', 'import', csv, '--account', 'acme', '--json'], env);
  assert.equal(rerun.code, 0, rerun.stderr);
  const report = JSON.parse(rerun.stdout) as { import: { events: number; duplicates: number; state: string } };
  assert.deepEqual([report.import.events, report.import.duplicates, report.import.state], [ROWS - partial, partial, 'completed']);
  assert.equal(count('SELECT COUNT(*) AS n FROM feedback_events'), ROWS);
  assert.equal(count('SELECT COUNT(*) AS n FROM address_feedback'), ROWS);
});
