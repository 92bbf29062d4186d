import { test, describe, before } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { newIdem } from '../api/harness.js';
import type { Harness } from '../api/harness.js';
import { assertSpecAnswer, rawRequest } from './raw-http.js';
import { BACKENDS } from '../backends.js';
import { harnessOn } from '../api/harness.js';

/**
 * Someone holding one account's key, or none, attacks the others: guessing keys, reading
 * another account's request ids, replaying another account's Idempotency-Key.
 */

const MISSING = '00000000-0000-4000-8000-000000000000';

/** The query of `tail` with its cursor (if any) re-issued for request `id`: the same position, asked of another request. */
function sameCursorFor(tail: string, id: string): string {
  const match = /cursor=([^&]+)/.exec(tail);
  if (!match?.[1]) return tail;
  try {
    const body = JSON.parse(Buffer.from(decodeURIComponent(match[1]), 'base64url').toString('utf8')) as Record<string, unknown>;
    return tail.replace(match[1], Buffer.from(JSON.stringify({ ...body, r: id })).toString('base64url'));
  } catch {
    return tail;
  }
}

for (const backend of BACKENDS) describe(`abuse: keys, foreign request ids, foreign idempotency keys (${backend.name})`, () => {
  const on = harnessOn(backend);
  let h: Harness;
  let a: { accountId: string; live: string; test: string };
  let b: { accountId: string; live: string; test: string };

  before(async () => {
    if (on.skip) return;
    h = on.h;
    a = await h.newAccount(100);
    b = await h.newAccount(100);
  });

  test('another account’s request ids, in any case and with any query, are 404 on status and results', async (t) => {
    if (on.skip) return t.skip(on.skip);
    const created = await h.call('POST', '/v1/requests', { key: a.test, idem: newIdem(), body: { emails: ['deliverable@example.com', 'role@example.com', 'full@example.com'] } });
    assert.equal(created.status, 202);
    const id: string = created.body.request.id;
    const own = await h.call('GET', `/v1/requests/${id}/results?limit=1`, { key: a.test });
    assert.equal(own.status, 200);
    const cursor: string | null = own.body.nextCursor;
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(b.test, b.live),
        fc.constantFrom(id, id.toUpperCase(), ` ${id}`.trim()),
        fc.constantFrom('', '/results', '/results?limit=200', `/results?cursor=${encodeURIComponent(cursor ?? 'x')}`, '/results?offset=0'),
        fc.boolean(),
        async (key, shownId, tail, bearer) => {
          const auth: Record<string, string> = bearer ? { authorization: `Bearer ${key}` } : { 'x-api-key': key };
          const answer = await rawRequest(h.url, 'GET', `/v1/requests/${shownId}${tail}`, auth);
          assertSpecAnswer(tail === '' ? 'status' : 'results', answer, `${shownId}${tail}`);
          assert.equal(answer.status, 404);
          // A foreign request must look exactly like one that does not exist, asked the same way.
          const missing = await rawRequest(h.url, 'GET', `/v1/requests/${MISSING}${sameCursorFor(tail, MISSING)}`, auth);
          const { code, message } = JSON.parse(answer.text).error;
          assert.deepEqual({ code, message }, { code: JSON.parse(missing.text).error.code, message: JSON.parse(missing.text).error.message });
        },
      ),
      { numRuns: 60 },
    );
    // And the foreign answer is the one an unknown id gets.
    const unknown = await h.call('GET', '/v1/requests/00000000-0000-4000-8000-000000000000', { key: b.test });
    const foreign = await h.call('GET', `/v1/requests/${id}`, { key: b.test });
    assert.equal(foreign.body.error.message, unknown.body.error.message);
  });

  test('one Idempotency-Key used by two accounts at once makes two requests, each replaying only its own', async (t) => {
    if (on.skip) return t.skip(on.skip);
    const idem = newIdem();
    const body = { emails: ['deliverable@example.com', 'undeliverable@example.com'] };
    const [ra, rb] = await Promise.all([h.call('POST', '/v1/requests', { key: a.live, idem, body }), h.call('POST', '/v1/requests', { key: b.live, idem, body })]);
    assert.equal(ra.status, 202);
    assert.equal(rb.status, 202);
    assert.notEqual(ra.body.request.id, rb.body.request.id);
    const [again_a, again_b] = await Promise.all([h.call('POST', '/v1/requests', { key: a.live, idem, body }), h.call('POST', '/v1/requests', { key: b.live, idem, body })]);
    assert.equal(again_a.status, 200);
    assert.equal(again_a.body.request.id, ra.body.request.id);
    assert.equal(again_b.status, 200);
    assert.equal(again_b.body.request.id, rb.body.request.id);
    // Each account can read its own request and not the other's.
    assert.equal((await h.call('GET', `/v1/requests/${rb.body.request.id}`, { key: a.live })).status, 404);
    assert.equal((await h.call('GET', `/v1/requests/${ra.body.request.id}`, { key: b.live })).status, 404);
  });

  test('ten identical /v1/verify requests racing under one Idempotency-Key run one check and bill it once', async (t) => {
    if (on.skip) return t.skip(on.skip);
    const c = await h.newAccount(5);
    const idem = newIdem();
    const answers = await Promise.all(
      Array.from({ length: 10 }, () =>
        rawRequest(h.url, 'POST', '/v1/verify', { 'x-api-key': c.live, 'idempotency-key': idem, 'content-type': 'application/json' }, JSON.stringify({ email: 'deliverable@race.example' })),
      ),
    );
    for (const answer of answers) assertSpecAnswer('verify', answer, 'idempotent race');
    assert.ok(answers.every((r) => r.status === 200 || r.status === 202), answers.map((r) => `${r.status} ${r.text.slice(0, 80)}`).join('\n'));
    const balance = await h.backend.ledger.getBalance(c.accountId);
    assert.equal(balance.debited + balance.held, 1, JSON.stringify(balance));
    const running = answers.filter((r) => r.status === 202).map((r) => (JSON.parse(r.text) as { engineJobId: string }).engineJobId);
    assert.ok(new Set(running).size <= 1, `one verification, not ${new Set(running).size}`);
  });

  test('one Idempotency-Key used by two accounts on /v1/verify runs and bills two checks, not a replay', async (t) => {
    if (on.skip) return t.skip(on.skip);
    const c = await h.newAccount(5);
    const d = await h.newAccount(5);
    const idem = newIdem();
    const body = { email: 'deliverable@example.com' };
    const [rc, rd] = await Promise.all([h.call('POST', '/v1/verify', { key: c.live, idem, body }), h.call('POST', '/v1/verify', { key: d.live, idem, body })]);
    assert.equal(rc.status, 200);
    assert.equal(rd.status, 200);
    assert.deepEqual(rc.body.presend.billing, { disposition: 'debited', credits: 1 });
    assert.deepEqual(rd.body.presend.billing, { disposition: 'debited', credits: 1 });
    assert.equal((await h.backend.ledger.getBalance(c.accountId)).available, 4);
    assert.equal((await h.backend.ledger.getBalance(d.accountId)).available, 4);
    // A different body under the same key in a third account is no reuse either.
    const e = await h.newAccount(5);
    const re = await h.call('POST', '/v1/verify', { key: e.live, idem, body: { email: 'role@example.com' } });
    assert.equal(re.status, 200);
  });
});
