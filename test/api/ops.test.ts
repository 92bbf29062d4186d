import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { describeOnEveryBackend } from '../backends.js';
import { startHarness, newIdem, waitFinal } from './harness.js';
import type { Harness } from './harness.js';
import { isError } from './schema-check.js';
import { startLiveService } from '../client/live-service.js';
import { openBackend } from '../../src/store/open-backend.js';

describeOnEveryBackend('operational routes and cross-cutting behaviour', (backend) => {
  let h: Harness;
  before(async () => {
    h = await startHarness({ backend });
  });
  after(async () => h.close());

  test('/healthz and /readyz answer without a key; unknown paths are 404 with the error body', async () => {
    assert.equal((await h.call('GET', '/healthz')).status, 200);
    assert.equal((await h.call('GET', '/readyz')).status, 200);
    isError(await h.call('GET', '/v2/nothing'), 404, 'not_found');
  });

  test('/metrics exposes request latency, verifications by verdict, credits debited and queue depth', async () => {
    const a = await h.newAccount(5);
    await h.call('POST', '/v1/verify', { key: a.live, idem: newIdem(), body: { email: 'deliverable@m.example' } });
    const res = await fetch(`${h.url}/metrics`);
    const text = await res.text();
    assert.match(res.headers.get('content-type') ?? '', /text\/plain/);
    assert.match(text, /presend_http_request_duration_seconds_bucket\{le="\+Inf",method="POST",route="\/v1\/verify",status="200"\} 1/);
    assert.match(text, /presend_verifications_total\{verdict="DELIVERABLE"\} \d+/);
    assert.match(text, /presend_credits_debited_total [1-9]/);
    assert.match(text, /presend_queue_depth \d+/);
  });

  test('every response carries X-Request-Id, a safe incoming one is kept, and the body’s requestId matches', async () => {
    const a = await h.newAccount(1);
    const r = await h.call('GET', '/v1/requests/00000000-0000-4000-8000-000000000000', { key: a.live, headers: { 'x-request-id': 'trace-42' } });
    assert.equal(r.headers.get('x-request-id'), 'trace-42');
    assert.equal(r.body.error.requestId, 'trace-42');
    const ok = await h.call('GET', '/healthz');
    assert.ok(ok.headers.get('x-request-id'));
    const bad = await h.call('GET', '/healthz', { headers: { 'x-request-id': 'has spaces and "quotes"' } });
    assert.notEqual(bad.headers.get('x-request-id'), 'has spaces and "quotes"');
  });

  test('the API key never appears in the JSON logs, in either header form', async () => {
    const { PassThrough } = await import('node:stream');
    const stream = new PassThrough();
    let text = '';
    stream.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
    const logged = await startHarness({ backend, server: { logLevel: 'trace', logStream: stream } });
    try {
      const a = await logged.newAccount(1);
      await logged.call('POST', '/v1/verify', { key: a.live, idem: newIdem(), body: { email: 'deliverable@log.example' } });
      await logged.call('GET', '/v1/requests/00000000-0000-4000-8000-000000000000', { bearer: a.test });
      logged.server.app.log.info({ headers: { 'x-api-key': a.live, authorization: `Bearer ${a.test}` } }, 'headers as a log field');
      assert.ok(text.length > 0);
      for (const line of text.trim().split('\n')) JSON.parse(line);
      assert.ok(!text.includes(a.live.slice(8)), 'live key in logs');
      assert.ok(!text.includes(a.test.slice(8)), 'test key in logs');
      assert.match(text, /\[redacted\]/);
    } finally {
      await logged.close();
    }
  });

  test('a finalized batch is deleted after its retention (then 404)', async () => {
    const a = await h.newAccount(5);
    const r = await h.call('POST', '/v1/requests', { key: a.live, idem: newIdem(), body: { emails: ['deliverable@ret.example'] } });
    const final = await waitFinal(h, a.live, r.body.request.id);
    const expires = new Date(final.request.retentionExpiresAt);
    assert.equal((await h.backend.retention.purgeExpired(new Date(expires.getTime() - 1000), 30)).requests, 0);
    assert.equal((await h.call('GET', `/v1/requests/${r.body.request.id}`, { key: a.live })).status, 200);
    assert.ok((await h.backend.retention.purgeExpired(expires, 30)).requests >= 1);
    isError(await h.call('GET', `/v1/requests/${r.body.request.id}`, { key: a.live }), 404, 'request_not_found');
    isError(await h.call('GET', `/v1/requests/${r.body.request.id}/results`, { key: a.live }), 404, 'request_not_found');
  });
});

// On PostgreSQL the same failure is a database outage under a running `presend serve`: test/api/outage.test.ts.
describe('failures that are bugs or outages', () => {
  test('a store that fails (closed under the server) answers 503 with the error body and no stack trace', async () => {
    const h = await startHarness();
    try {
      const a = await h.newAccount(1);
      await h.backend.close();
      const r = await h.call('GET', '/v1/requests/00000000-0000-4000-8000-000000000000', { key: a.live });
      isError(r, 503, 'service_unavailable');
      assert.doesNotMatch(JSON.stringify(r.body), /at |\.ts:|stack|not open/);
      isError(await h.call('GET', '/readyz'), 503, 'service_unavailable');
    } finally {
      await h.close();
    }
  });

  test('a bug answers 500 internal_error with the error body, its cause in the log only', async () => {
    const h = await startHarness();
    try {
      const a = await h.newAccount(1);
      // A defect in a use case (not the database): what the status route calls throws a TypeError.
      Object.assign(h.backend.batches, {
        get: async () => {
          throw new TypeError("Cannot read properties of undefined (reading 'counters')");
        },
      });
      const r = await h.call('GET', '/v1/requests/00000000-0000-4000-8000-000000000000', { key: a.live });
      isError(r, 500, 'internal_error');
      assert.doesNotMatch(JSON.stringify(r.body), /at |\.ts:|stack|counters/);
    } finally {
      await h.close();
    }
  });
});

describeOnEveryBackend('graceful shutdown', (backend) => {
  test('while shutting down new work is 503 and /readyz is 503; running checks finish and are stored', async () => {
    const h = await startHarness({ backend });
    const a = await h.newAccount(5);
    const pending = await h.call('POST', '/v1/verify', { key: a.live, idem: newIdem(), body: { email: 'slow@x.example', timeoutMs: 10 } });
    assert.equal(pending.status, 202);
    h.server.stopAccepting();
    isError(await h.call('GET', '/readyz'), 503, 'service_unavailable');
    isError(await h.call('POST', '/v1/verify', { key: a.live, idem: newIdem(), body: { email: 'deliverable@x.example' } }), 503, 'service_unavailable');
    isError(await h.call('POST', '/v1/requests', { key: a.live, idem: newIdem(), body: { emails: ['deliverable@x.example'] } }), 503, 'service_unavailable');
    await h.server.close();
    const { openBackend } = await import('../../src/store/open-backend.js');
    const store = await openBackend(h.config.databaseUrl);
    const record = await store.verifications.get(a.accountId, pending.body.engineJobId);
    assert.equal(record?.state, 'completed');
    assert.equal(record?.result?.envelope.verdict, 'DELIVERABLE');
    assert.deepEqual(await store.ledger.getBalance(a.accountId), { granted: 5, debited: 1, held: 0, available: 4 });
    await store.close();
    const { rmSync } = await import('node:fs');
    rmSync(h.dir, { recursive: true, force: true });
  });
});

describe('presend serve', () => {
  test('starts without a process warning: Fastify’s FSTDEP023 deprecation was printed at every start', async () => {
    const service = await startLiveService();
    try {
      assert.equal((await fetch(`${service.baseUrl}/healthz`)).status, 200);
      // Node prints process warnings as "(node:PID) [CODE] Name: message".
      assert.doesNotMatch(service.logs(), /\(node:\d+\)|FSTDEP\d+/);
    } finally {
      await service.stop();
    }
  });

  test('without a probe identity it says so at start-up and in /readyz, refuses live keys without billing, and serves sandbox keys', async () => {
    const service = await startLiveService({
      env: { PRESEND_HELO_NAME: '', PRESEND_MAIL_FROM: '' },
      accounts: [
        { name: 'live-off', credits: 5, test: false },
        { name: 'trial', credits: 0, test: true },
      ],
    });
    try {
      assert.match(service.logs(), /\*\*\* Live checks are off on this server until its operator sets PRESEND_HELO_NAME .* and PRESEND_MAIL_FROM/);
      const ready = await fetch(`${service.baseUrl}/readyz`);
      assert.equal(ready.status, 200);
      const body = (await ready.json()) as { status: string; warnings?: string[] };
      assert.equal(body.status, 'ready');
      assert.match(body.warnings?.join('\n') ?? '', /Live checks are off/);

      const post = (path: string, key: string, payload: unknown) =>
        fetch(`${service.baseUrl}${path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-api-key': key, 'idempotency-key': `k-${path}-${key.slice(0, 12)}` },
          body: JSON.stringify(payload),
        });
      // NXDOMAIN needs no probe, but a live answer from a server that cannot probe is not sold.
      for (const [path, payload] of [
        ['/v1/verify', { email: 'someone@nxdomain.invalid' }],
        ['/v1/requests', { emails: ['someone@nxdomain.invalid', 'other@example.com'] }],
      ] as const) {
        const refused = await post(path, service.keyOf('live-off'), payload);
        assert.equal(refused.status, 503, path);
        const error = ((await refused.json()) as { error: { code: string; message: string } }).error;
        assert.equal(error.code, 'service_unavailable');
        assert.match(error.message, /PRESEND_HELO_NAME .* PRESEND_MAIL_FROM .*live keys are refused and nothing is billed/);
      }
      const sandbox = await post('/v1/verify', service.keyOf('trial'), { email: 'deliverable@example.com' });
      assert.equal(sandbox.status, 200);
      const store = await openBackend(service.adminEnv.PRESEND_DATABASE_URL ?? '');
      try {
        const account = await store.accounts.findAccountByName('live-off');
        assert.ok(account);
        const balance = await store.ledger.getBalance(account.id);
        assert.deepEqual([balance.available, balance.held, balance.debited], [5, 0, 0]);
      } finally {
        await store.close();
      }
    } finally {
      await service.stop();
    }
  });
});
