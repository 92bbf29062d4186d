/**
 * The admin commands of docs/design.md §3 as an operator runs them: real `presend` processes on a
 * temp SQLite store, then the created key and list used over HTTP.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { exited, presend, startServe } from './processes.js';
import { until } from '../until.js';

test('accounts, keys, credits and lists are managed from the command line and work over HTTP', { timeout: 90_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'presend-admin-'));
  let serve: ChildProcess | null = null;
  try {
    const env = { PRESEND_DATABASE_URL: `sqlite:${join(dir, 'p.db')}`, PRESEND_PORT: '0', PRESEND_WORKER_POLL_MS: '50' };
    const created = await presend(['accounts', 'create', 'acme', '--credits', '3', '--json'], env);
    assert.equal(created.code, 0, created.stderr);
    assert.equal(JSON.parse(created.stdout).balance.available, 3);
    const csv = join(dir, 'list.csv');
    writeFileSync(csv, 'name,Email\nAlice,deliverable@list.example\nBob,undeliverable@list.example\nEve,not an address\n,\n');
    // Independent commands run side by side (SQLite's busy timeout serialises their writes).
    const [dup, usage, liveOut, testOut, granted, imported] = await Promise.all([
      presend(['accounts', 'create', 'acme'], env),
      presend(['keys', 'create'], env),
      presend(['keys', 'create', '--account', 'acme', '--json'], env),
      presend(['keys', 'create', '--account', 'acme', '--test'], env),
      presend(['credits', 'grant', '--account', 'acme', '2', '--json'], env),
      presend(['lists', 'import', csv, '--account', 'acme', '--name', 'q3'], env),
    ]);
    assert.equal(dup.code, 1);
    assert.match(dup.stderr, /already exists/);
    assert.equal(usage.code, 2, 'a missing required option is a usage error');
    const key = JSON.parse(liveOut.stdout) as { key: string; displayPrefix: string };
    assert.match(key.key, /^ps_live\.[0-9A-Za-z]{40}$/);
    const testKey = testOut.stdout.split('\n')[0] ?? '';
    assert.match(testKey, /^ps_test\.[0-9A-Za-z]{40}$/);
    assert.equal(JSON.parse(granted.stdout).balance.available, 5);
    assert.equal(imported.code, 0, imported.stderr);
    const listId = imported.stdout.trim();
    assert.match(listId, /^[0-9a-f-]{36}$/);

    // A quote left open after the first rows: the import has begun, so the list ends up failed.
    const broken = join(dir, 'broken.csv');
    writeFileSync(broken, `email\n${Array.from({ length: 150 }, (_, i) => `user${i}@list.example`).join('\n')}\n"unclosed@list.example\nlast@list.example\n`);
    const [listed, missing, failed, started] = await Promise.all([
      presend(['keys', 'list', '--account', 'acme', '--json'], env),
      presend(['lists', 'import', join(dir, 'nope.csv'), '--account', 'acme', '--json'], env),
      presend(['lists', 'import', broken, '--account', 'acme', '--json'], env),
      startServe(env),
    ]);
    serve = started.child;
    const rows = JSON.parse(listed.stdout) as Array<{ displayPrefix: string }>;
    assert.equal(rows.length, 2);
    assert.ok(!listed.stdout.includes(key.key), 'listings show display prefixes only');
    assert.equal(missing.code, 2, 'a file that is not there is a usage error, and no list is created for it');
    assert.match(missing.stderr, /file not found: .*nope\.csv/);
    assert.equal(failed.code, 6, failed.stderr);
    assert.match(failed.stderr, /marked failed.*line 152/);
    const failedId = /list ([0-9a-f-]{36})/.exec((JSON.parse(failed.stdout) as { error: string }).error)?.[1];

    // The sandbox key keeps this test off the network; the list belongs to the account, not the key.
    const headers = { 'x-api-key': testKey, 'content-type': 'application/json', 'idempotency-key': 'admin-1' };
    const batch = await fetch(`${started.url}/v1/requests`, { method: 'POST', headers, body: JSON.stringify({ listId }) });
    assert.equal(batch.status, 202);
    const body = (await batch.json()) as { request: { id: string }; counters: { total: number; unique: number } };
    // A list batch is created at once and filled from the list in the background.
    assert.equal(body.counters.total, 3);
    await until('the list batch is filled from the list', async () => {
      const status = (await (await fetch(`${started.url}/v1/requests/${body.request.id}`, { headers: { 'x-api-key': testKey } })).json()) as { counters: { unique: number } };
      return status.counters.unique === 3;
    });
    const notReady = await fetch(`${started.url}/v1/requests`, { method: 'POST', headers: { ...headers, 'idempotency-key': 'admin-2' }, body: JSON.stringify({ listId: failedId }) });
    assert.equal(notReady.status, 422);

    const [revoked, purged, limited] = await Promise.all([
      presend(['keys', 'revoke', key.displayPrefix, '--account', 'acme', '--yes', '--json'], env),
      presend(['purge', '--json'], env),
      presend(['accounts', 'rate-limit', 'acme', '--per-second', '1', '--burst', '1'], env),
    ]);
    assert.equal(JSON.parse(revoked.stdout).revoked, 1);
    assert.equal((await fetch(`${started.url}/v1/requests/${body.request.id}`, { headers: { 'x-api-key': key.key } })).status, 401);
    assert.equal(purged.code, 0);
    assert.equal(JSON.parse(purged.stdout).requests, 0);
    assert.equal(limited.code, 0, limited.stderr);
    const statuses = [];
    // POSTs draw from the bucket the override sets (GETs from the larger reads bucket).
    for (let i = 0; i < 3; i++) {
      const post = { ...headers, 'idempotency-key': `admin-limit-${i}` };
      statuses.push((await fetch(`${started.url}/v1/requests`, { method: 'POST', headers: post, body: JSON.stringify({ emails: [`limit${i}@list.example`] }) })).status);
    }
    assert.equal(statuses[0], 202, 'the other key still works');
    assert.ok(statuses.includes(429), `the account override applies: ${statuses.join(',')}`);
  } finally {
    if (serve) {
      serve.kill('SIGTERM');
      await exited(serve);
    }
    rmSync(dir, { recursive: true, force: true });
  }
});
