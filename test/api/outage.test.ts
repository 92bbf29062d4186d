/**
 * A PostgreSQL outage under a running `presend serve` (a database restart or failover, made here
 * by refusing connections and terminating the open ones): the service answers the spec's error
 * bodies meanwhile (503 `service_unavailable`: temporary, not a bug; /readyz 503), stays up, and
 * serves again once the database is back. Run in a child process, so that a crash is the process's, not the runner's.
 *
 * It used to exit: "Unhandled 'error' event" on a pg Client ("Connection terminated
 * unexpectedly"), a client checked out of the pool for a transaction having no 'error' listener
 * (src/store/postgres/database.ts `checkout` listens to it now). The LISTEN connection of the
 * workers' wake-ups comes back after the outage too.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import pg from 'pg';
import { REPO_ROOT, freePort } from '../client/live-service.js';
import { CLI_NODE_ARGS } from '../cli-entry.js';
import { freshDatabase } from '../backends.js';
import { openBackend } from '../../src/store/open-backend.js';
import { generateApiKey } from '../../src/service/keys/key-format.js';
import { BACKENDS } from '../backends.js';
import { assertMatches } from './schema-check.js';
import { ErrorBody } from '../../src/api/schemas.js';
import { until } from '../until.js';

const postgres = BACKENDS.find((b) => b.name === 'PostgreSQL');

/** Runs SQL on the server's maintenance database (the one under test may be refusing connections). */
async function onServer<R extends pg.QueryResultRow = pg.QueryResultRow>(url: string, sql: string, params: unknown[] = []): Promise<R[]> {
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    return (await client.query<R>(sql, params)).rows;
  } finally {
    await client.end();
  }
}

/** Sessions of `application` open on database `name`. */
async function sessionsOf(url: string, name: string, application: string): Promise<number> {
  const rows = await onServer<{ n: string }>(url, 'SELECT count(*) AS n FROM pg_stat_activity WHERE datname = $1 AND application_name = $2', [name, application]);
  return Number(rows[0]?.n ?? 0);
}

/** A check that throws while the database is away counts as "not yet". */
const notYetOnError = <T>(check: () => Promise<T | null>) => () => check().catch(() => null);

describe('a PostgreSQL outage under presend serve', { skip: postgres?.skip ?? 'no PostgreSQL backend' }, () => {
  test('is answered 503 service_unavailable (/readyz 503 too); the process stays up and serves again when the database is back', async () => {
    const fresh = await freshDatabase();
    if (fresh.kind === 'skip') throw new Error(fresh.reason);
    const { url, name } = fresh.db;
    const backend = await openBackend(url);
    const account = await backend.accounts.createAccount({ name: 'outage', credits: 5, now: new Date() });
    if (!account) throw new Error('account not created');
    const key = generateApiKey('test');
    await backend.keyManagement.createKey({ label: null, actor: { name: 'test setup' }, accountId: account.id, hash: key.hash, displayPrefix: key.displayPrefix, mode: 'test', now: new Date() });
    await backend.close();

    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const child = spawn(process.execPath, [...CLI_NODE_ARGS, 'serve', '--port', String(port)], {
      cwd: REPO_ROOT,
      // A worker that looks for work often: the outage finds it in the middle of a claim or a wait, as a busy one would be.
      env: { ...process.env, PRESEND_DATABASE_URL: url, PRESEND_HOST: '127.0.0.1', PRESEND_LOG_LEVEL: 'warn', PRESEND_WORKER_POLL_MS: '10' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (output += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (output += c));
    const alive = () => assert.ok(child.exitCode === null && child.signalCode === null, `presend serve exited (${child.exitCode ?? child.signalCode}):\n${output.slice(-3000)}`);
    const get = async (path: string) => {
      try {
        return await fetch(`${base}${path}`, { headers: { 'x-api-key': key.key } });
      } catch (err) {
        alive(); // a refused connection because the process died says so, with its last output
        throw err;
      }
    };
    try {
      await until('presend serve to answer', notYetOnError(async () => ((await get('/readyz')).status === 200 ? true : null)));
      // The service has been working (the queue is started) when the database goes away.
      const created = await fetch(`${base}/v1/requests`, {
        method: 'POST',
        headers: { 'x-api-key': key.key, 'idempotency-key': 'outage-1', 'content-type': 'application/json' },
        body: JSON.stringify({ emails: ['deliverable@example.com', 'undeliverable@example.com'] }),
      });
      const id = ((await created.json()) as { request: { id: string } }).request.id;
      await until('the batch to finish', notYetOnError(async () => (((await (await get(`/v1/requests/${id}`)).json()) as { request: { finalized: boolean } }).request.finalized ? true : null)));
      await until('the workers to LISTEN', notYetOnError(async () => ((await sessionsOf(url, name, 'presend-wake')) === 1 ? true : null)));

      await onServer(url, `ALTER DATABASE ${name} ALLOW_CONNECTIONS false`);
      await onServer(url, 'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1', [name]);
      const during = await get(`/v1/requests/${id}`);
      const body = await during.json();
      assert.equal(during.status, 503, JSON.stringify(body));
      assertMatches(ErrorBody, body);
      assert.equal((body as { error: { code: string } }).error.code, 'service_unavailable');
      assert.equal((await get('/readyz')).status, 503);
      // Kept: the worker's loop must run into the outage (it polls on its own time, and no line marks it); what is checked is that the process survives it.
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      alive();

      await onServer(url, `ALTER DATABASE ${name} ALLOW_CONNECTIONS true`);
      await until('/readyz to be 200 again', notYetOnError(async () => ((await get('/readyz')).status === 200 ? true : null)));
      assert.equal((await get(`/v1/requests/${id}`)).status, 200);
      // The workers' LISTEN connection is back, and a new batch is worked.
      await until('the workers to LISTEN again', notYetOnError(async () => ((await sessionsOf(url, name, 'presend-wake')) === 1 ? true : null)));
      const after = await fetch(`${base}/v1/requests`, {
        method: 'POST',
        headers: { 'x-api-key': key.key, 'idempotency-key': 'outage-2', 'content-type': 'application/json' },
        body: JSON.stringify({ emails: ['deliverable@example.org'] }),
      });
      assert.equal(after.status, 202);
      const second = ((await after.json()) as { request: { id: string } }).request.id;
      await until('the batch after the outage to finish', notYetOnError(async () => (((await (await get(`/v1/requests/${second}`)).json()) as { request: { finalized: boolean } }).request.finalized ? true : null)));
      alive();
    } finally {
      if (child.exitCode === null && child.signalCode === null) {
        const closed = once(child, 'close');
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
        await closed;
        clearTimeout(timer);
      }
      await onServer(url, `ALTER DATABASE ${name} ALLOW_CONNECTIONS true`).catch(() => undefined);
      await fresh.db.drop();
    }
  });
});
