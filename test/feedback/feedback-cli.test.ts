/**
 * `presend feedback token|key|window|import|show|forget` as processes on one SQLite store: a
 * token printed once and only its hash kept, a key checked before it is kept, the window set, a
 * Postfix report imported and shown, the address forgotten. Exit codes as docs/cli.md gives them.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { presend } from '../service/processes.js';

let dir: string;
let env: Record<string, string>;
before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'presend-feedback-cli-'));
  // The recorded report has a fixed date: kept (and taken) for a century, so the test does not age out of the retention.
  env = { PRESEND_DATABASE_URL: `sqlite:${join(dir, 'p.db')}`, PRESEND_FEEDBACK_EVENTS_RETENTION_DAYS: '36500' };
  assert.equal((await presend(['accounts', 'create', 'acme', '--credits', '0'], env)).code, 0);
});
after(() => rmSync(dir, { recursive: true, force: true }));

test('a token is printed once and kept as a hash; a bad key is refused; the window is set', async () => {
  const made = await presend(['feedback', 'token', 'sendgrid', '--account', 'acme', '--json'], env);
  assert.equal(made.code, 0, made.stderr);
  const { token, path } = JSON.parse(made.stdout) as { token: string; path: string };
  assert.match(token, /^fb_[0-9A-Za-z]{40}$/);
  assert.equal(path, `/feedback/sendgrid/${token}`);
  const db = new Database(join(dir, 'p.db'), { readonly: true });
  try {
    const kept = JSON.stringify(db.prepare('SELECT * FROM feedback_sources').all());
    assert.ok(!kept.includes(token), 'the token itself is not stored');
  } finally {
    db.close();
  }
  const bad = await presend(['feedback', 'key', 'sendgrid', 'not-a-key', '--account', 'acme'], env);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /not a public key/);
  const unknown = await presend(['feedback', 'token', 'sparkpost', '--account', 'acme'], env);
  assert.equal(unknown.code, 2);
  const window = await presend(['feedback', 'window', '45', '--account', 'acme'], env);
  assert.equal(window.code, 0, window.stderr);
  assert.match(window.stdout, /45 day/);
});

test('a report imported is shown with the address, then forgotten', async () => {
  const fixture = fileURLToPath(new URL('./fixtures/exim-unknown-user.eml', import.meta.url));
  const imported = await presend(['feedback', 'import', fixture, '--account', 'acme'], env);
  assert.equal(imported.code, 0, imported.stderr);
  assert.match(imported.stdout, /^1 event\(s\) recorded, 0 already known, 0 not taken \(dsn/);
  const shown = await presend(['feedback', 'show', 'gone.person@example.net', '--account', 'acme'], env);
  assert.equal(shown.code, 0, shown.stderr);
  assert.match(shown.stdout, /last hard bounce 2026-11-24T11:20:05\.000Z \(5\.0\.0, dsn\)/);
  const forgotten = await presend(['feedback', 'forget', 'gone.person@example.net', '--account', 'acme'], env);
  assert.match(forgotten.stdout, /gone.person@example.net forgotten/);
  const after = await presend(['feedback', 'show', 'gone.person@example.net', '--account', 'acme'], env);
  assert.match(after.stdout, /no history/);
  const missing = await presend(['feedback', 'import', join(dir, 'nothing-here.mbox'), '--account', 'acme'], env);
  assert.notEqual(missing.code, 0);
});
