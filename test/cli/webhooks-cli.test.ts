/**
 * `presend webhooks` as an operator runs it, on a temp SQLite store with a `presend serve`
 * sending: add (secret printed once; a metadata address refused), list (never a secret), test
 * (delivered, verified by the `standardwebhooks` package), rotate (both secrets verify the next
 * delivery), remove.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { exited, presend, startServe } from '../service/processes.js';
import { startReceiver } from '../webhooks/receiver.js';

test('webhook endpoints are added, listed, tested, rotated and removed from the command line', { timeout: 120_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'presend-webhooks-cli-'));
  const receiver = await startReceiver();
  let serve: ChildProcess | null = null;
  try {
    const env = { PRESEND_DATABASE_URL: `sqlite:${join(dir, 'p.db')}`, PRESEND_PORT: '0', PRESEND_ALLOW_PRIVATE_WEBHOOKS: 'loopback', PRESEND_WEBHOOK_POLL_MS: '50' };
    assert.equal((await presend(['accounts', 'create', 'acme'], env)).code, 0);
    const [metadata, badEvents, added] = await Promise.all([
      presend(['webhooks', 'add', 'http://169.254.169.254/latest/meta-data/', '--account', 'acme'], env),
      presend(['webhooks', 'add', `${receiver.url}/cli`, '--account', 'acme', '--events', 'batch.done'], env),
      presend(['webhooks', 'add', `${receiver.url}/cli`, '--account', 'acme', '--events', 'batch.completed,batch.failed', '--description', 'CRM', '--json'], env),
    ]);
    assert.equal(metadata.code, 2, 'a refused address is a usage error');
    assert.match(metadata.stderr, /PRESEND_ALLOW_PRIVATE_WEBHOOKS/);
    assert.equal(badEvents.code, 2);
    assert.match(badEvents.stderr, /unknown event type batch\.done/);
    assert.equal(added.code, 0, added.stderr);
    const endpoint = JSON.parse(added.stdout) as { id: string; secret: string; events: string[] };
    assert.match(endpoint.secret, /^whsec_/);
    assert.deepEqual(endpoint.events, ['batch.completed', 'batch.failed']);

    const listed = await presend(['webhooks', 'list', '--account', 'acme'], env);
    assert.equal(listed.code, 0);
    assert.match(listed.stdout, new RegExp(`${endpoint.id}\\s+${receiver.url}/cli\\s+batch\\.completed,batch\\.failed`));
    assert.ok(!listed.stdout.includes(endpoint.secret.slice(6)), 'a listing never shows the secret');

    serve = (await startServe(env)).child;
    const tested = await presend(['webhooks', 'test', endpoint.id, '--account', 'acme'], env);
    assert.equal(tested.code, 0, tested.stderr);
    assert.match(tested.stdout, /^delivered: HTTP 200 \(webhook-id msg_[0-9a-f]{32}\)/);
    const first = await receiver.waitFor((r) => r.path === '/cli');
    assert.equal(first.payload.type, 'webhook.test');
    assert.deepEqual(receiver.verifiedBy(first, [endpoint.secret]), [endpoint.secret]);

    const rotated = await presend(['webhooks', 'rotate', endpoint.id, '--account', 'acme', '--json'], env);
    assert.equal(rotated.code, 0, rotated.stderr);
    const fresh = (JSON.parse(rotated.stdout) as { secret: string }).secret;
    assert.notEqual(fresh, endpoint.secret);
    assert.equal((await presend(['webhooks', 'test', endpoint.id, '--account', 'acme'], env)).code, 0);
    const second = await receiver.waitFor((r) => r.path === '/cli' && r !== first);
    assert.deepEqual(receiver.verifiedBy(second, [endpoint.secret, fresh]), [endpoint.secret, fresh]);

    const [otherAccount, removed] = await Promise.all([
      presend(['webhooks', 'remove', endpoint.id, '--account', 'nobody', '--yes'], env),
      presend(['webhooks', 'remove', endpoint.id, '--account', 'acme', '--yes'], env),
    ]);
    assert.equal(otherAccount.code, 1);
    assert.equal(removed.code, 0, removed.stderr);
    assert.equal((await presend(['webhooks', 'list', '--account', 'acme'], env)).stdout.trim(), '(no webhook endpoints)');
  } finally {
    if (serve) {
      serve.kill('SIGTERM');
      await exited(serve);
    }
    await receiver.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
