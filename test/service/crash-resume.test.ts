/**
 * Crash safety: a `presend serve` child process is SIGKILLed in the middle of a live batch
 * against the mail world, then started again on the same SQLite file. The batch must resume
 * from the store's leases, finish with every address exactly once, and bill exactly:
 * credits debited + released = credits held at creation.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startMailWorld } from '../../src/mailworld/index.js';
import type { MailWorld, WorldSpec } from '../../src/mailworld/index.js';
import { openBackend } from '../../src/store/open-backend.js';
import { generateApiKey } from '../../src/service/keys/key-format.js';
import { exited, startServe } from './processes.js';
import { until } from '../until.js';

const N = 150;

function lagWorld(): WorldSpec {
  const mailboxes: Record<string, 'accept' | 'temp_fail'> = {};
  for (let i = 0; i < N; i++) if (i % 3 === 0) mailboxes[`user${i}`] = 'accept';
  for (let i = 0; i < N; i++) if (i % 3 === 1) mailboxes[`user${i}`] = 'temp_fail';
  return {
    hosts: [{ name: 'mx.lag.test', commandLatencyMs: 25 }],
    domains: [{ name: 'lag.test', mx: [{ host: 'mx.lag.test', preference: 10 }], mailboxes, otherMailboxes: 'unknown' }],
  };
}

interface CrashScene {
  world: MailWorld;
  databaseUrl: string;
  accountId: string;
  key: string;
  /** Every `presend serve` started here; whatever still runs is killed at the end. */
  children: ChildProcess[];
}

/** A mail world, a SQLite file with one live account holding `credits`, and clean-up afterwards. */
async function inCrashScene(spec: WorldSpec, credits: number, body: (scene: CrashScene) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'presend-crash-'));
  const world = await startMailWorld(spec);
  const children: ChildProcess[] = [];
  try {
    const databaseUrl = `sqlite:${join(dir, 'presend.db')}`;
    const setup = await openBackend(databaseUrl);
    const account = await setup.accounts.createAccount({ name: 'crash', credits, now: new Date() });
    assert.ok(account);
    const key = generateApiKey('live');
    await setup.keyManagement.createKey({ label: null, actor: { name: 'test setup' }, accountId: account.id, hash: key.hash, displayPrefix: key.displayPrefix, mode: 'live', now: new Date() });
    await setup.close();
    await body({ world, databaseUrl, accountId: account.id, key: key.key, children });
  } finally {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await Promise.all(children.map(exited));
    await world.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The account's balance as the store holds it once `child` has stopped. */
async function balanceAfter(child: ChildProcess, databaseUrl: string, accountId: string) {
  child.kill('SIGTERM');
  await exited(child);
  const check = await openBackend(databaseUrl);
  try {
    return await check.ledger.getBalance(accountId);
  } finally {
    await check.close();
  }
}

test('a batch interrupted by SIGKILL resumes after restart with every address once and exact credits', { timeout: 90_000 }, async () => {
  await inCrashScene(lagWorld(), 1000, async ({ world, databaseUrl, accountId, key, children }) => {
    const env = {
      ...world.env(),
      PRESEND_DATABASE_URL: databaseUrl,
      PRESEND_PORT: '0',
      PRESEND_WORKER_CONCURRENCY: '8',
      PRESEND_WORKER_LEASE_MS: '1500',
      PRESEND_WORKER_POLL_MS: '100',
      PRESEND_SMTP_TIMEOUT_MS: '5000',
      PRESEND_LOG_LEVEL: 'info',
    };
    const api = (url: string, path: string, init: RequestInit = {}) =>
      fetch(`${url}${path}`, { ...init, headers: { 'x-api-key': key, 'content-type': 'application/json', ...init.headers } }).then(async (r) => ({
        status: r.status,
        body: (await r.json()) as any, // eslint-disable-line @typescript-eslint/no-explicit-any
      }));

    const first = await startServe(env);
    children.push(first.child);
    const emails = Array.from({ length: N }, (_, i) => `user${i}@lag.test`);
    const created = await api(first.url, '/v1/requests', { method: 'POST', headers: { 'idempotency-key': 'crash-1' }, body: JSON.stringify({ emails }) });
    assert.equal(created.status, 202);
    const id = created.body.request.id as string;
    await until('20 items are completed', async () => {
      const s = await api(first.url, `/v1/requests/${id}`);
      if (s.body.counters.completed >= 20) return true;
      assert.notEqual(s.body.request.state, 'completed', 'the batch finished before the kill: slow the world down');
      return false;
    }, 60_000);
    first.child.kill('SIGKILL');
    await exited(first.child);

    const second = await startServe(env);
    children.push(second.child);
    const mid = await api(second.url, `/v1/requests/${id}`);
    assert.notEqual(mid.body.request.state, 'completed', 'the kill interrupted the batch');
    const final = await until('the second process completes the batch', async () => {
      const s = await api(second.url, `/v1/requests/${id}`);
      return s.body.request.state === 'completed' ? s : null;
    }, 120_000, 100);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { body: { results: Array<{ email: string }>; nextCursor: string | null } } = await api(
        second.url,
        `/v1/requests/${id}/results?limit=200${cursor ? `&cursor=${cursor}` : ''}`,
      );
      seen.push(...page.body.results.map((r) => r.email));
      cursor = page.body.nextCursor;
    } while (cursor);
    assert.equal(seen.length, N);
    assert.deepEqual([...seen].sort(), [...emails].sort());
    const c = final.body.counters;
    assert.equal(c.creditsHeld, 0);
    assert.equal(c.creditsDebited + c.creditsReleased, N);
    assert.equal(c.creditsDebited, 100, 'accepted and unknown mailboxes are verdicts; temp failures are not');

    assert.deepEqual(await balanceAfter(second.child, databaseUrl, accountId), { granted: 1000, debited: 100, held: 0, available: 900 });
  });
});

test('a single check answered 202 and then cut off by SIGKILL is resumed after restart: the replay gets its verdict, billed once', { timeout: 90_000 }, async () => {
  // Every SMTP reply takes 700 ms: the check needs several seconds, far more than its wait.
  const slowWorld: WorldSpec = {
    hosts: [{ name: 'mx.slowpoke.test', commandLatencyMs: 700 }],
    domains: [{ name: 'slowpoke.test', mx: [{ host: 'mx.slowpoke.test', preference: 10 }], mailboxes: { ann: 'accept' }, otherMailboxes: 'unknown' }],
  };
  await inCrashScene(slowWorld, 5, async ({ world, databaseUrl, accountId, key, children }) => {
    const env = { ...world.env(), PRESEND_DATABASE_URL: databaseUrl, PRESEND_PORT: '0', PRESEND_WORKER_LEASE_MS: '1500', PRESEND_LOG_LEVEL: 'info' };
    const verify = (url: string) =>
      fetch(`${url}/v1/verify`, {
        method: 'POST',
        headers: { 'x-api-key': key, 'content-type': 'application/json', 'idempotency-key': 'one-check' },
        body: JSON.stringify({ email: 'ann@slowpoke.test', timeoutMs: 300 }),
      }).then(async (r) => ({ status: r.status, body: (await r.json()) as any })); // eslint-disable-line @typescript-eslint/no-explicit-any

    const first = await startServe(env);
    children.push(first.child);
    const accepted = await verify(first.url);
    assert.equal(accepted.status, 202);
    assert.ok(accepted.body.engineJobId);
    first.child.kill('SIGKILL');
    await exited(first.child);

    const second = await startServe(env);
    children.push(second.child);
    const first202 = await verify(second.url);
    assert.equal(first202.status, 202, 'right after the restart the check is still running');
    const replay = await until('the abandoned check is resumed and answered', async () => {
      const answer = await verify(second.url);
      return answer.status === 202 ? null : answer;
    }, 60_000, 250);
    assert.equal(replay.status, 200);
    assert.equal(replay.body.presend.verdict, 'DELIVERABLE');
    assert.deepEqual(replay.body.presend.billing, { disposition: 'debited', credits: 1 });

    assert.deepEqual(await balanceAfter(second.child, databaseUrl, accountId), { granted: 5, debited: 1, held: 0, available: 4 });
  });
});
