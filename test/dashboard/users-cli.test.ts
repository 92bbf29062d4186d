/**
 * `presend users create|reset-password` as an operator runs them (real processes on a temp
 * SQLite store), and the hint `presend serve` prints while no owner exists yet.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startPresend } from '../scale/presend-process.js';
import { presend } from '../service/processes.js';

test('a new install says how to create the first owner, whose one-time link then opens the set-password page', { timeout: 90_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'presend-users-'));
  const env = { PRESEND_DATABASE_URL: `sqlite:${join(dir, 'p.db')}`, PRESEND_LOG_LEVEL: 'info' };
  const serve = startPresend('serve', ['serve', '--host', '127.0.0.1', '--port', '0', '--no-worker'], env);
  try {
    const hint = await serve.waitFor(/no owner yet[^\n]*\n\s+npx --no-install presend (users create [^\n]+)/);
    const url = (await serve.waitFor(/"url":"(http:\/\/127\.0\.0\.1:\d+)"/))[1] as string;
    // The server's store and address are not the defaults: the hint names both, so the command
    // run as printed, from a terminal that has neither variable, adds the owner where it signs in.
    assert.equal(hint[1], `users create --account acme --email you@example.com --create-account --credits 1000 --base-url ${url} --database ${env.PRESEND_DATABASE_URL}`);
    const asPrinted = await presend((hint[1] ?? '').split(' '), { PRESEND_DATABASE_URL: '', PRESEND_BASE_URL: '' });
    assert.equal(asPrinted.code, 0, asPrinted.stderr);
    const firstLink = /(http:\/\/\S+\/dashboard\/set-password\/\S+)/.exec(asPrinted.stdout)?.[1] ?? '';
    assert.ok(firstLink.startsWith(`${url}/dashboard/set-password/`), asPrinted.stdout);
    assert.equal((await fetch(firstLink)).status, 200, 'the owner is in the store this server reads');
    const base = { ...env, PRESEND_BASE_URL: url };

    const missing = await presend(['users', 'create', '--account', 'acme-2', '--email', 'ann@acme.example'], base);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /no account named "acme-2" \(add --create-account/);
    const bad = await presend(['users', 'create', '--account', 'acme', '--email', 'not an email'], base);
    assert.equal(bad.code, 2);

    const made = await presend(['users', 'create', '--account', 'acme-2', '--email', 'Ann@Acme.example', '--create-account', '--credits', '1000', '--json'], base);
    assert.equal(made.code, 0, made.stderr);
    const out = JSON.parse(made.stdout) as { email: string; accountCreated: boolean; link: string };
    assert.equal(out.email, 'ann@acme.example');
    assert.equal(out.accountCreated, true);
    assert.match(out.link, new RegExp(`^${url}/dashboard/set-password/[A-Za-z0-9_-]{43}$`));
    const page = await fetch(out.link);
    assert.equal(page.status, 200);
    assert.match(await page.text(), /Choose the password for <strong>ann@acme\.example<\/strong>/);

    const again = await presend(['users', 'create', '--account', 'acme', '--email', 'ann@acme.example'], base);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /already exists/);

    const reset = await presend(['users', 'reset-password', '--email', 'ANN@acme.example'], base);
    assert.equal(reset.code, 0, reset.stderr);
    const link = /(http:\/\/\S+\/dashboard\/set-password\/\S+)/.exec(reset.stdout)?.[1] as string;
    assert.notEqual(link, out.link);
    assert.equal((await fetch(out.link)).status, 404, 'the earlier link stops working');
    assert.equal((await fetch(link)).status, 200);
    const unknown = await presend(['users', 'reset-password', '--email', 'nobody@acme.example'], base);
    assert.equal(unknown.code, 1);
  } finally {
    await serve.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});
