import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { describeOnEveryBackend } from '../backends.js';
import { startHarness, newIdem } from './harness.js';
import type { Harness } from './harness.js';
import { isError, isVerifyResult } from './schema-check.js';
import { until } from '../until.js';

describeOnEveryBackend('POST /v1/verify', (backend) => {
  let h: Harness;
  before(async () => {
    h = await startHarness({ backend });
  });
  after(async () => h.close());

  test('a deliverable address answers 200 with a completed envelope, engine metadata and one credit debited', async () => {
    const a = await h.newAccount(5);
    const r = await h.call('POST', '/v1/verify', { key: a.live, idem: newIdem(), body: { email: 'deliverable@example.com' } });
    assert.equal(r.status, 200);
    isVerifyResult(r.body);
    assert.equal(r.body.status, 'completed');
    assert.equal(r.body.presend.verdict, 'DELIVERABLE');
    assert.deepEqual(r.body.presend.billing, { disposition: 'debited', credits: 1 });
    assert.ok(r.body.engine.verifiedAt);
    assert.equal(r.body.engineJobId, undefined);
    assert.equal(r.body.requestId, r.headers.get('x-request-id'));
    assert.equal((await h.backend.ledger.getBalance(a.accountId)).available, 4);
  });

  test('a non-verdict is released and not billed', async () => {
    const a = await h.newAccount(1);
    const r = await h.call('POST', '/v1/verify', { key: a.live, idem: newIdem(), body: { email: 'unknown@example.com' } });
    assert.equal(r.status, 200);
    assert.deepEqual(r.body.presend.billing, { disposition: 'released', credits: 0 });
    assert.equal((await h.backend.ledger.getBalance(a.accountId)).available, 1);
  });

  test('the Bearer form of the same key is accepted', async () => {
    const a = await h.newAccount(1);
    const r = await h.call('POST', '/v1/verify', { bearer: a.live, idem: newIdem(), body: { email: 'deliverable@example.com' } });
    assert.equal(r.status, 200);
  });

  test('history is filled from the account’s earlier checks of the address', async () => {
    const a = await h.newAccount(5);
    const first = await h.call('POST', '/v1/verify', { key: a.live, idem: newIdem(), body: { email: 'deliverable@History.example' } });
    assert.equal(first.body.presend.history, null);
    const second = await h.call('POST', '/v1/verify', { key: a.live, idem: newIdem(), body: { email: 'deliverable@history.example' } });
    assert.equal(second.body.presend.history.checks, 1);
    assert.equal(second.body.presend.history.lastVerdict, 'DELIVERABLE');
  });

  test('a slow check answers 202 with the pending envelope and an engineJobId, and a replay after it ends is 200, billed once', async () => {
    const a = await h.newAccount(3);
    const idem = newIdem();
    const body = { email: 'slow@example.com', timeoutMs: 50 };
    const r = await h.call('POST', '/v1/verify', { key: a.live, idem, body });
    assert.equal(r.status, 202);
    isVerifyResult(r.body);
    assert.equal(r.body.status, 'running');
    assert.ok(r.body.engineJobId);
    assert.equal(r.body.engine, undefined);
    assert.deepEqual(
      { ...r.body.presend },
      {
        contract_version: 1,
        status: 'running',
        outcome: 'pending',
        decision: null,
        verdict: null,
        provider_family: null,
        confidence: null,
        reasons: [],
        evidence_class: null,
        retry: null,
        billing: { disposition: 'released', credits: 0 },
        history: null,
      },
    );
    const replay = await until('the replay answers 200 with the result', async () => {
      const answer = await h.call('POST', '/v1/verify', { key: a.live, idem, body });
      if (answer.status === 200) return answer;
      assert.equal(answer.status, 202);
      assert.equal(answer.body.engineJobId, r.body.engineJobId);
      return null;
    }, 60_000, 100);
    isVerifyResult(replay.body);
    assert.equal(replay.body.presend.verdict, 'DELIVERABLE');
    const again = await h.call('POST', '/v1/verify', { key: a.live, idem, body });
    assert.equal(again.status, 200);
    assert.equal((await h.backend.ledger.getBalance(a.accountId)).available, 2);
  });

  test('a sandbox key is never billed', async () => {
    const a = await h.newAccount(0);
    const r = await h.call('POST', '/v1/verify', { key: a.test, idem: newIdem(), body: { email: 'deliverable@example.com' } });
    assert.equal(r.status, 200);
    assert.deepEqual(r.body.presend.billing, { disposition: 'released', credits: 0 });
  });

  test('a live key with no credits is 402', async () => {
    const a = await h.newAccount(0);
    isError(await h.call('POST', '/v1/verify', { key: a.live, idem: newIdem(), body: { email: 'deliverable@example.com' } }), 402, 'insufficient_credits');
  });

  test('missing, malformed, unknown and revoked keys are 401', async () => {
    const a = await h.newAccount(1);
    const body = { email: 'deliverable@example.com' };
    isError(await h.call('POST', '/v1/verify', { idem: newIdem(), body }), 401, 'unauthorized');
    isError(await h.call('POST', '/v1/verify', { key: 'nope', idem: newIdem(), body }), 401, 'unauthorized');
    isError(await h.call('POST', '/v1/verify', { key: 'ps_live.' + 'A'.repeat(40), idem: newIdem(), body }), 401, 'unauthorized');
    const live = (await h.backend.keyManagement.listKeys(a.accountId)).find((k) => k.mode === 'live');
    assert.ok(live && a.live.startsWith(live.displayPrefix));
    await h.backend.keyManagement.revokeKey({ accountId: a.accountId, keyId: live.id, actor: { name: 'test' }, now: new Date() });
    isError(await h.call('POST', '/v1/verify', { key: a.live, idem: newIdem(), body }), 401, 'unauthorized');
  });

  test('schema breaks are 400 with the error body, never 500', async () => {
    const a = await h.newAccount(1);
    const key = a.live;
    isError(await h.call('POST', '/v1/verify', { key, body: { email: 'deliverable@example.com' } }), 400, 'missing_idempotency_key');
    isError(await h.call('POST', '/v1/verify', { key, idem: newIdem(), body: { email: 'x@example.com', extra: 1 } }), 400, 'invalid_request');
    isError(await h.call('POST', '/v1/verify', { key, idem: newIdem(), body: { email: 'x@example.com', timeoutMs: 0 } }), 400, 'invalid_request');
    isError(await h.call('POST', '/v1/verify', { key, idem: newIdem(), body: { email: 'x@example.com', timeoutMs: '5' } }), 400, 'invalid_request');
    isError(await h.call('POST', '/v1/verify', { key, idem: newIdem(), body: {} }), 400, 'invalid_request');
    isError(await h.call('POST', '/v1/verify', { key, idem: newIdem(), body: { email: 'not-an-address' } }), 400, 'invalid_email');
    isError(await h.call('POST', '/v1/verify', { key, idem: newIdem(), body: { email: 'a'.repeat(320) + '@x.com' } }), 400, 'invalid_email');
    isError(await h.call('POST', '/v1/verify', { key, idem: newIdem(), rawBody: '{"email": ', headers: { 'content-type': 'application/json' } }), 400, 'invalid_request');
    isError(await h.call('POST', '/v1/verify', { key, idem: newIdem(), rawBody: 'email=x', headers: { 'content-type': 'text/plain' } }), 400, 'invalid_request');
    isError(await h.call('POST', '/v1/verify', { key, idem: newIdem(), rawBody: 'x', headers: { 'content-type': 'application/x-www-form-urlencoded' } }), 400, 'invalid_request');
    isError(await h.call('POST', '/v1/verify', { key, idem: newIdem(), rawBody: JSON.stringify({ email: 'x'.repeat(5_000_000) }), headers: { 'content-type': 'application/json' } }), 400, 'invalid_email');
    isError(await h.call('POST', '/v1/verify', { key, idem: newIdem(), rawBody: JSON.stringify({ email: 'x'.repeat(17_000_000) }), headers: { 'content-type': 'application/json' } }), 400, 'invalid_request');
  });

  test('a body that is not JSON is 400 invalid_request saying Content-Type must be application/json, on both POST routes (the spec lists no 415)', async () => {
    const a = await h.newAccount(1);
    const json = JSON.stringify({ email: 'deliverable@example.com' });
    const cases: Array<{ type: string | null; body: string | Uint8Array; says: RegExp }> = [
      { type: 'application/x-www-form-urlencoded', body: 'email=deliverable%40example.com', says: /Content-Type must be application\/json \(got "application\/x-www-form-urlencoded"\)/ },
      { type: 'text/plain', body: json, says: /Content-Type must be application\/json \(got "text\/plain"\)/ },
      { type: 'multipart/form-data; boundary=x', body: '--x\r\nContent-Disposition: form-data; name="email"\r\n\r\na@example.com\r\n--x--', says: /Content-Type must be application\/json/ },
      // fetch sends a byte body with no Content-Type at all.
      { type: null, body: new TextEncoder().encode(json), says: /Content-Type must be application\/json/ },
    ];
    for (const path of ['/v1/verify', '/v1/requests']) {
      for (const c of cases) {
        const headers: Record<string, string> = { 'x-api-key': a.live, 'idempotency-key': newIdem() };
        if (c.type) headers['content-type'] = c.type;
        const res = await fetch(`${h.url}${path}`, { method: 'POST', headers, body: c.body });
        const body = (await res.json()) as { error: { message: string } };
        isError({ status: res.status, headers: res.headers, body }, 400, 'invalid_request');
        assert.match(body.error.message, c.says, `${path} ${c.type}`);
      }
      const empty = await fetch(`${h.url}${path}`, { method: 'POST', headers: { 'x-api-key': a.live, 'idempotency-key': newIdem() } });
      const body = (await empty.json()) as { error: { message: string } };
      isError({ status: empty.status, headers: empty.headers, body }, 400, 'invalid_request');
      assert.match(body.error.message, /body is missing.*Content-Type must be application\/json/, `${path} without a body`);
    }
    assert.equal((await h.backend.ledger.getBalance(a.accountId)).available, 1, 'nothing was held or billed');
  });

  test('an address wrapped in white space is 400 invalid_email naming the problem, never trimmed', async () => {
    const a = await h.newAccount(1);
    for (const [email, named] of [
      [' deliverable@example.com', /starts with a space/],
      ['deliverable@example.com\n', /ends with a line feed \(U\+000A\)/],
      ['deliverable@example.com\r\n', /ends with a line feed/],
      ['deliverable@example.com\r', /ends with a carriage return/],
    ] as const) {
      const r = await h.call('POST', '/v1/verify', { key: a.live, idem: newIdem(), body: { email } });
      isError(r, 400, 'invalid_email');
      assert.match(r.body.error.message, /^email is not a valid address: /);
      assert.match(r.body.error.message, named, JSON.stringify(email));
    }
    assert.deepEqual(await h.backend.ledger.getBalance(a.accountId), { granted: 1, debited: 0, held: 0, available: 1 }, 'nothing billed');
  });

  test('invisible and format characters are 400 invalid_email naming the character', async () => {
    const a = await h.newAccount(1);
    for (const [email, named] of [
      ['deliverable\u202e@example.com', /U\+202E/],
      ['deli\u200bverable@example.com', /U\+200B/],
      ['deli\u00adverable@example.com', /U\+00AD/],
      ['deli\u2028verable@example.com', /U\+2028/],
      ['deli\ufeffverable@example.com', /U\+FEFF/],
      ['deli\ufdd0verable@example.com', /U\+FDD0/],
    ] as const) {
      const r = await h.call('POST', '/v1/verify', { key: a.live, idem: newIdem(), body: { email } });
      isError(r, 400, 'invalid_email');
      assert.match(r.body.error.message, named, JSON.stringify(email));
    }
  });

  test('an emoji or CJK extension B local part and a dotless domain pass the email format', async () => {
    const a = await h.newAccount(3);
    for (const email of ['😀@example.com', '\u{20000}@example.com', 'test@io']) {
      const r = await h.call('POST', '/v1/verify', { key: a.test, idem: newIdem(), body: { email } });
      assert.equal(r.status, 200, `${email}: ${JSON.stringify(r.body).slice(0, 300)}`);
    }
  });

  test('an internationalised address passes the email format', async () => {
    const a = await h.newAccount(1);
    const r = await h.call('POST', '/v1/verify', { key: a.live, idem: newIdem(), body: { email: 'deliverable@bücher.example' } });
    assert.equal(r.status, 200);
  });

  test('an Idempotency-Key reused with a different body is 400 idempotency_key_reused; the same body replays the same check', async () => {
    const a = await h.newAccount(5);
    const idem = newIdem();
    const first = await h.call('POST', '/v1/verify', { key: a.live, idem, body: { email: 'deliverable@example.com' } });
    const replay = await h.call('POST', '/v1/verify', { key: a.live, idem, body: { email: 'deliverable@example.com' } });
    assert.equal(replay.status, 200);
    assert.equal(replay.body.engine.verifiedAt, first.body.engine.verifiedAt);
    isError(await h.call('POST', '/v1/verify', { key: a.live, idem, body: { email: 'other@example.com' } }), 400, 'idempotency_key_reused');
    assert.equal((await h.backend.ledger.getBalance(a.accountId)).available, 4);
  });

  test('two identical verifications racing run one check, billed once', async () => {
    const a = await h.newAccount(5);
    const idem = newIdem();
    const body = { email: 'deliverable@race.example' };
    const [x, y] = await Promise.all([h.call('POST', '/v1/verify', { key: a.live, idem, body }), h.call('POST', '/v1/verify', { key: a.live, idem, body })]);
    assert.deepEqual([x.status, y.status], [200, 200]);
    assert.equal(x.body.engine.verifiedAt, y.body.engine.verifiedAt);
    assert.equal((await h.backend.ledger.getBalance(a.accountId)).available, 4);
  });

  test('the engine failing is 502 engine_unavailable and nothing is billed', async () => {
    const a = await h.newAccount(1);
    isError(await h.call('POST', '/v1/verify', { key: a.live, idem: newIdem(), body: { email: 'crash@example.com' } }), 502, 'engine_unavailable');
    assert.equal((await h.backend.ledger.getBalance(a.accountId)).available, 1);
  });
});

describeOnEveryBackend('POST /v1/verify under load and shutdown', (backend) => {
  test('more checks in flight than allowed is 503 service_unavailable', async () => {
    const h = await startHarness({ backend, server: { maxInFlightVerifies: 1 } });
    try {
      const a = await h.newAccount(5);
      const slow = await h.call('POST', '/v1/verify', { key: a.live, idem: newIdem(), body: { email: 'slow@example.com', timeoutMs: 10 } });
      assert.equal(slow.status, 202);
      isError(await h.call('POST', '/v1/verify', { key: a.live, idem: newIdem(), body: { email: 'deliverable@example.com' } }), 503, 'service_unavailable');
    } finally {
      await h.close();
    }
  });

  test('a key over its rate limit gets 429 with Retry-After and RateLimit headers on every route; reads have their own bucket', async () => {
    const h = await startHarness({
      backend,
      env: { PRESEND_RATE_LIMIT_PER_SECOND: '1', PRESEND_RATE_LIMIT_BURST: '2', PRESEND_RESULTS_RATE_LIMIT_PER_SECOND: '1', PRESEND_RESULTS_RATE_LIMIT_BURST: '3' },
    });
    try {
      const a = await h.newAccount(5);
      const id = '00000000-0000-4000-8000-000000000000';
      const isLimited = (r: Awaited<ReturnType<Harness['call']>>, burst: number) => {
        isError(r, 429, 'rate_limited');
        assert.ok(Number.isInteger(Number(r.headers.get('retry-after'))) && Number(r.headers.get('retry-after')) >= 1);
        assert.equal(r.headers.get('ratelimit-limit'), String(burst));
        assert.equal(r.headers.get('ratelimit-remaining'), '0');
        assert.ok(Number(r.headers.get('ratelimit-reset')) >= 1);
      };
      // The work's bucket: two checks, then every POST is refused.
      const first = await h.call('POST', '/v1/verify', { key: a.test, idem: newIdem(), body: { email: 'deliverable@example.com' } });
      assert.equal(first.headers.get('ratelimit-limit'), '2');
      assert.equal(first.headers.get('ratelimit-remaining'), '1');
      await h.call('POST', '/v1/verify', { key: a.test, idem: newIdem(), body: { email: 'deliverable@example.com' } });
      isLimited(await h.call('POST', '/v1/verify', { key: a.test, idem: newIdem(), body: { email: 'deliverable@example.com' } }), 2);
      isLimited(await h.call('POST', '/v1/requests', { key: a.test, idem: newIdem(), body: { emails: ['deliverable@example.com'] } }), 2);
      // Reads draw from their own bucket (burst 3): untouched by the checks, spent by reads alone.
      const read = await h.call('GET', `/v1/requests/${id}`, { key: a.test });
      assert.equal(read.status, 404);
      assert.equal(read.headers.get('ratelimit-limit'), '3');
      assert.equal(read.headers.get('ratelimit-remaining'), '2');
      assert.equal((await h.call('GET', `/v1/requests/${id}/results`, { key: a.test })).status, 404);
      assert.equal((await h.call('GET', `/v1/requests/${id}`, { bearer: a.test })).status, 404);
      isLimited(await h.call('GET', `/v1/requests/${id}`, { bearer: a.test }), 3);
      isLimited(await h.call('GET', `/v1/requests/${id}/results`, { key: a.test }), 3);
      // Another key has its own buckets.
      assert.equal((await h.call('GET', `/v1/requests/${id}`, { key: a.live })).status, 404);
      assert.equal((await h.call('POST', '/v1/verify', { key: a.live, idem: newIdem(), body: { email: 'deliverable@example.com' } })).status, 200);
    } finally {
      await h.close();
    }
  });
});
