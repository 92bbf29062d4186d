/**
 * What the webhook scale-out tests share (webhooks-node-kill, webhooks-worker): a fresh
 * PostgreSQL database, a receiver that verifies signatures, a store opened on that database for
 * the test's own reads and set-up, the processes it starts (killed at the end), the environment
 * those processes run with, and an account with a sandbox key and one endpoint on the receiver.
 */
import { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { freshDatabase } from '../backends.js';
import type { PresendProcess } from './presend-process.js';
import { openBackend } from '../../src/store/open-backend.js';
import type { Backend } from '../../src/store/backend.js';
import { generateApiKey } from '../../src/service/keys/key-format.js';
import { addEndpoint } from '../../src/service/webhooks/endpoints.js';
import type { WebhookEventType } from '../../src/store/roles/webhooks/webhook-records.js';
import { startReceiver } from '../webhooks/receiver.js';
import type { Receiver } from '../webhooks/receiver.js';

export interface WebhookScale {
  /** The reason the tests skip (no PostgreSQL), or false. */
  skip: string | false;
  /** The processes a test starts: each is killed when the file ends. */
  processes: PresendProcess[];
  /** Set once `before` ran (on PostgreSQL only). */
  store?: Backend;
  receiver?: Receiver;
  /** The environment of the Presend processes on this database (quick polls, small pools, warnings only). */
  env: Record<string, string>;
}

/** Registers the file's `before`/`after` and returns what they set up. */
export async function webhookScale(): Promise<WebhookScale> {
  const fresh = await freshDatabase();
  const scale: WebhookScale = {
    skip: fresh.kind === 'skip' ? fresh.reason : false,
    processes: [],
    env:
      fresh.kind === 'ready'
        ? {
            PRESEND_DATABASE_URL: fresh.db.url,
            PRESEND_ALLOW_PRIVATE_WEBHOOKS: 'loopback',
            PRESEND_WORKER_POLL_MS: '50',
            PRESEND_DATABASE_POOL_SIZE: '3',
            PRESEND_SHARED_POOL_SIZE: '2',
            PRESEND_LOG_LEVEL: 'warn',
          }
        : {},
  };
  before(async () => {
    if (fresh.kind !== 'ready') return;
    scale.receiver = await startReceiver();
    // Migrated here, before any node starts.
    scale.store = await openBackend(fresh.db.url);
  });
  after(async () => {
    await Promise.allSettled(scale.processes.map((p) => p.kill()));
    await scale.store?.close();
    await scale.receiver?.close();
    if (fresh.kind === 'ready') await fresh.db.drop();
  });
  return scale;
}

/** An account with a sandbox key and an endpoint at the receiver's `/hooks` for `events` (none: every event). */
export async function accountWithEndpoint(store: Backend, receiver: Receiver, events: WebhookEventType[]) {
  const account = await store.accounts.createAccount({ name: 'hooks', credits: 0, now: new Date() });
  assert.ok(account);
  const key = generateApiKey('test');
  await store.keyManagement.createKey({ label: null, actor: { name: 'test setup' }, accountId: account.id, hash: key.hash, displayPrefix: key.displayPrefix, mode: 'test', now: new Date() });
  const added = await addEndpoint(store.webhooks, { accountId: account.id, url: `${receiver.url}/hooks`, events, description: null, allowPrivate: 'loopback', now: new Date() });
  assert.ok(added.kind === 'done');
  return { account, key, endpoint: added.value.endpoint, secret: added.value.secret };
}
