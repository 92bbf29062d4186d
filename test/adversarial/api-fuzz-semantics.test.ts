import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { domainToASCII } from 'node:url';
import fc from 'fast-check';
import { startHarness, newIdem, waitFinal } from '../api/harness.js';
import type { Harness } from '../api/harness.js';
import { assertSpecAnswer, rawRequest } from './raw-http.js';

/**
 * Inputs that are valid on the wire but try to confuse the meaning: the same address spelt
 * many ways in one batch, forged and mangled cursors, and request ids chosen by the client.
 */
const LOCALS = ['deliverable', 'Deliverable', 'role', 'undeliverable+1', 'user.name'];
const DOMAINS = ['example.com', 'EXAMPLE.com', 'Example.Com', 'bücher.example', 'BÜCHER.example', 'xn--bcher-kva.example', 'münchen.test', 'MÜNCHEN.TEST'];

/** docs/design.md §4: the domain is lower-cased and IDNA-encoded, the local part kept as given. */
const normalise = (email: string) => {
  const at = email.lastIndexOf('@');
  return `${email.slice(0, at)}@${domainToASCII(email.slice(at + 1).toLowerCase())}`;
};

describe('API fuzzing: meaning-level attacks', () => {
  let h: Harness;
  let a: { accountId: string; live: string; test: string };
  before(async () => {
    h = await startHarness();
    a = await h.newAccount(1_000_000);
  });
  after(async () => h?.close());

  test('one address spelt many ways in a batch is held, verified and exported once', async () => {
    const address = fc.tuple(fc.constantFrom(...LOCALS), fc.constantFrom(...DOMAINS)).map(([l, d]) => `${l}@${d}`);
    await fc.assert(
      fc.asyncProperty(fc.array(address, { minLength: 1, maxLength: 25 }), async (emails) => {
        const unique = new Set(emails.map(normalise));
        const created = await h.call('POST', '/v1/requests', { key: a.live, idem: newIdem(), body: { emails } });
        assert.equal(created.status, 202, JSON.stringify(created.body));
        const counters = created.body.counters;
        assert.equal(counters.total, emails.length);
        assert.equal(counters.unique, unique.size);
        assert.equal(counters.duplicates, emails.length - unique.size);
        assert.equal(counters.creditsHeld, unique.size);
        const final = await waitFinal(h, a.live, created.body.request.id);
        assert.equal(final.counters.completed, unique.size);
        assert.equal(final.counters.creditsDebited + final.counters.creditsReleased, unique.size);
        const page = await h.call('GET', `/v1/requests/${created.body.request.id}/results?limit=200`, { key: a.live });
        const exported = (page.body.results as Array<{ email: string }>).map((r) => r.email);
        assert.equal(exported.length, unique.size);
        assert.deepEqual(new Set(exported), unique);
      }),
      { numRuns: 25 },
    );
  });

  test('forged, mangled and foreign cursors give a page of this request or 404, never 400 or 5xx', async () => {
    const created = await h.call('POST', '/v1/requests', { key: a.test, idem: newIdem(), body: { emails: Array.from({ length: 12 }, (_, i) => `user${i}@example.com`) } });
    const id: string = created.body.request.id;
    await waitFinal(h, a.test, id);
    const other = await h.call('POST', '/v1/requests', { key: a.test, idem: newIdem(), body: { emails: ['x@example.com'] } });
    const all = new Set(((await h.call('GET', `/v1/requests/${id}/results?limit=200`, { key: a.test })).body.results as Array<{ email: string }>).map((r) => r.email));
    const forge = (body: unknown) => Buffer.from(JSON.stringify(body)).toString('base64url');
    const cursor = fc.oneof(
      fc.integer({ min: -5, max: 40 }).map((s) => forge({ r: id, s })),
      fc.constantFrom(forge({ r: other.body.request.id, s: 0 }), forge({ r: id, s: 1e300 }), forge({ r: id, s: '1' }), forge({ r: id, s: 1.5 }), forge({ s: 1, r: id }), forge({ r: id, s: 2, x: 1 }), forge([id, 1]), forge(null)),
      fc.tuple(fc.integer({ min: 0, max: 12 }), fc.nat(), fc.string({ minLength: 1, maxLength: 3 })).map(([s, at, junk]) => {
        const real = forge({ r: id, s });
        const cut = at % real.length;
        return real.slice(0, cut) + junk + real.slice(cut + 1);
      }),
      fc.string({ unit: 'binary', maxLength: 60 }),
    );
    await fc.assert(
      fc.asyncProperty(cursor, fc.integer({ min: -3, max: 300 }), async (c, limit) => {
        const answer = await rawRequest(h.url, 'GET', `/v1/requests/${id}/results?cursor=${encodeURIComponent(c)}&limit=${limit}`, { 'x-api-key': a.test });
        assertSpecAnswer('results', answer, c);
        if (answer.status === 200) {
          const page = JSON.parse(answer.text) as { jobId: string; limit: number; results: Array<{ email: string }> };
          assert.equal(page.jobId, id);
          assert.ok(page.results.length <= page.limit);
          for (const r of page.results) assert.ok(all.has(r.email), r.email);
        }
      }),
      { numRuns: 200 },
    );
  });

  test('a client-chosen X-Request-Id is echoed only when it is a safe token; the body always carries the header’s id', async () => {
    const SAFE = /^[A-Za-z0-9._:-]{1,128}$/;
    const given = fc.oneof(
      fc.string({ unit: fc.constantFrom(...'abcXYZ019._:-'.split('')), minLength: 1, maxLength: 140 }),
      fc.string({ unit: fc.integer({ min: 0x20, max: 0xff }).filter((c) => c !== 0x7f).map((c) => String.fromCharCode(c)), maxLength: 200 }),
      fc.constantFrom('', ' ', 'a b', ' j', ' 0 ', '<script>', '{"level":60}', 'id\u00e9', 'x'.repeat(129)),
    );
    await fc.assert(
      fc.asyncProperty(given, fc.constantFrom('/v1/requests/nope', '/nowhere', '/v1/verify'), async (requestId, path) => {
        const method = path === '/v1/verify' ? 'POST' : 'GET';
        const answer = await rawRequest(h.url, method, path, { 'x-request-id': requestId, 'x-api-key': a.test }, method === 'POST' ? 'not json' : undefined);
        assertSpecAnswer(path === '/v1/verify' ? 'verify' : path === '/nowhere' ? 'elsewhere' : 'status', answer, JSON.stringify(requestId));
        const echoed = answer.headers['x-request-id'] as string;
        assert.match(echoed, SAFE);
        // What arrives is what Node read off the wire (trimmed); it is echoed only when safe.
        if (SAFE.test(requestId.trim())) assert.equal(echoed, requestId.trim());
        else assert.notEqual(echoed, requestId);
      }),
      { numRuns: 150 },
    );
  });
});
