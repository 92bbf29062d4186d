import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { startFuzzTarget } from './fuzz-target.js';
import type { FuzzTarget } from './fuzz-target.js';
import { assertSpecAnswer, rawExchange, rawRequest, rssOf } from './raw-http.js';
import type { RawHeaders } from './raw-http.js';

/**
 * Bodies the internet sends: any JSON, wrong types, unknown fields, invalid UTF-8, odd content
 * types, deep nesting and megabytes. Every answer keeps the route's statuses and the spec's
 * error body, and the server's memory stays bounded (RSS of the child process).
 */
const RUNS = 150;
const POST_ROUTES = [
  ['verify', '/v1/verify'],
  ['createBatch', '/v1/requests'],
] as const;

const CONTENT_TYPES = [
  'application/json',
  'application/json; charset=utf-8',
  'APPLICATION/JSON',
  'application/json; charset=latin1',
  'application/problem+json',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=xyz',
  'application/octet-stream',
  'application/json, text/plain',
  ';;;',
  null,
] as const;

let idem = 0;
const freshIdem = () => `fuzz-${process.pid}-${++idem}`;

const anyValue = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  fc.string({ unit: 'binary', maxLength: 400 }),
  fc.integer(),
  fc.double(),
  fc.constantFrom(null, true, '', 0, -1, 120_001, 1e308, '2', [], {}),
);
const emailish = fc.oneof(fc.emailAddress(), fc.string({ unit: 'binary', maxLength: 340 }), fc.constantFrom('slow@example.com', 'a@b', '@', 'x'.repeat(321) + '@example.com'), anyValue);
const verifyBody = fc
  .record({ email: emailish, timeoutMs: fc.oneof(fc.integer({ min: -5, max: 2000 }), fc.constantFrom(0, 1, 120_000, 120_001, 1.5, '100'), anyValue) }, { requiredKeys: [] })
  .chain((body) => fc.dictionary(fc.string({ maxLength: 12 }), anyValue, { maxKeys: 2 }).map((extra) => ({ ...extra, ...body })));
const batchBody = fc
  .record({ emails: fc.oneof(fc.array(emailish, { maxLength: 12 }), anyValue), listId: fc.oneof(fc.uuid(), anyValue) }, { requiredKeys: [] })
  .chain((body) => fc.dictionary(fc.string({ maxLength: 12 }), anyValue, { maxKeys: 2 }).map((extra) => ({ ...extra, ...body })));

/** A valid body whose address carries a byte that is never valid UTF-8 (RFC 3629 §3). */
const invalidUtf8Json = fc
  .tuple(fc.emailAddress(), fc.nat(), fc.constantFrom(0xff, 0xfe, 0xc0, 0xc1, 0xf5, 0x80), fc.boolean())
  .map(([email, at, byte, batch]) => {
    const local = Buffer.from(email.slice(0, email.lastIndexOf('@')), 'utf8');
    const cut = at % (local.length + 1);
    const mangled = Buffer.concat([local.subarray(0, cut), Buffer.from([byte]), local.subarray(cut), Buffer.from(email.slice(email.lastIndexOf('@')), 'utf8')]);
    const [open, close] = batch ? ['{"emails":["', '"]}'] : ['{"email":"', '"}'];
    return { route: batch ? POST_ROUTES[1] : POST_ROUTES[0], bytes: Buffer.concat([Buffer.from(open), mangled, Buffer.from(close)]) };
  });

describe('API fuzzing: bodies and content types against a presend serve child process', () => {
  let t: FuzzTarget;
  let rssBefore = 0;
  const keyHeaders = (): fc.Arbitrary<RawHeaders> =>
    fc.constantFrom<RawHeaders>({ 'x-api-key': t.test }, { 'x-api-key': t.live }, { authorization: `Bearer ${t.test}` }, { authorization: `Bearer ${t.live}` });

  before(async () => {
    t = await startFuzzTarget();
    // Warm up the routes (JIT, SQLite pages, ajv) so the RSS baseline is a running server's.
    for (let i = 0; i < 50; i += 1) {
      await rawRequest(t.url, 'POST', '/v1/verify', { 'x-api-key': t.test, 'idempotency-key': freshIdem(), 'content-type': 'application/json' }, '{"email":"warm@example.com"}');
      await rawRequest(t.url, 'POST', '/v1/requests', { 'x-api-key': t.test, 'idempotency-key': freshIdem(), 'content-type': 'application/json' }, '{"emails":[1]}');
    }
    rssBefore = await rssOf(t.service.pid);
  });
  after(async () => t?.stop());

  test('arbitrary JSON on the two POST routes answers a listed status with the spec error body, never a 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...POST_ROUTES), keyHeaders(), fc.jsonValue({ maxDepth: 6 }), async ([route, path], keys, body) => {
        const answer = await rawRequest(t.url, 'POST', path, { ...keys, 'idempotency-key': freshIdem(), 'content-type': 'application/json' }, JSON.stringify(body));
        assertSpecAnswer(route, answer, `${path} ${JSON.stringify(body).slice(0, 200)}`);
      }),
      { numRuns: RUNS },
    );
  });

  test('near-valid bodies with wrong types, out-of-range values and unknown fields keep the contract', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...POST_ROUTES), keyHeaders(), verifyBody, batchBody, async ([route, path], keys, v, b) => {
        const body = route === 'verify' ? v : b;
        const answer = await rawRequest(t.url, 'POST', path, { ...keys, 'idempotency-key': freshIdem(), 'content-type': 'application/json' }, JSON.stringify(body));
        assertSpecAnswer(route, answer, `${path} ${JSON.stringify(body).slice(0, 200)}`);
        // Unknown fields are a schema break (docs/interface-spec.md §2: no other fields are allowed).
        const known = route === 'verify' ? ['email', 'timeoutMs'] : ['emails', 'listId'];
        if (Object.keys(body).some((k) => !known.includes(k))) assert.equal(answer.status, 400, answer.text);
      }),
      { numRuns: RUNS },
    );
  });

  test('random bytes under any content type are a listed status, never a 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...POST_ROUTES), fc.constantFrom(...CONTENT_TYPES), fc.uint8Array({ maxLength: 3000 }), async ([route, path], type, bytes) => {
        const headers: RawHeaders = { 'x-api-key': t.test, 'idempotency-key': freshIdem() };
        if (type !== null) headers['content-type'] = type;
        const answer = await rawRequest(t.url, 'POST', path, headers, Buffer.from(bytes));
        assertSpecAnswer(route, answer, `${path} ${type} ${bytes.length} bytes`);
      }),
      { numRuns: RUNS },
    );
  });

  test('a JSON body with invalid UTF-8 bytes is 400, never verified as a mangled address', async () => {
    await fc.assert(
      fc.asyncProperty(invalidUtf8Json, async ({ route: [route, path], bytes }) => {
        const answer = await rawRequest(t.url, 'POST', path, { 'x-api-key': t.test, 'idempotency-key': freshIdem(), 'content-type': 'application/json' }, bytes);
        assertSpecAnswer(route, answer, `${path} ${bytes.toString('latin1').slice(0, 200)}`);
        assert.equal(answer.status, 400, answer.text);
      }),
      { numRuns: RUNS },
    );
    // The plainest case: a valid address except for one byte that is not UTF-8.
    const mangled = Buffer.concat([Buffer.from('{"email":"jos'), Buffer.from([0xe9]), Buffer.from('@example.com"}')]);
    const answer = await rawRequest(t.url, 'POST', '/v1/verify', { 'x-api-key': t.test, 'idempotency-key': freshIdem(), 'content-type': 'application/json' }, mangled);
    assertSpecAnswer('verify', answer);
    assert.equal(answer.status, 400, answer.text);
  });

  test('deeply nested, huge and over-long bodies are 400 with the error body', async () => {
    const cases: Array<[string, string]> = [
      ['100,000 nested arrays', '['.repeat(100_000) + ']'.repeat(100_000)],
      ['10,000 nested objects under email', `{"email":${'{"a":'.repeat(10_000)}1${'}'.repeat(10_001)}`],
      ['17 MiB address (over the body limit)', `{"emails":["${'a'.repeat(17 * 1024 * 1024)}@example.com"]}`],
      ['5 MiB address (under the body limit, over 320 characters)', `{"emails":["${'a'.repeat(5 * 1024 * 1024)}@example.com"]}`],
      ['10,001 addresses', JSON.stringify({ emails: Array.from({ length: 10_001 }, (_, i) => `user${i}@example.com`) })],
      ['3.9 MiB of unknown fields', JSON.stringify(Object.fromEntries(Array.from({ length: 40_000 }, (_, i) => [`field${i}`, 'x'.repeat(80)])))],
      ['a string of 1,000,000 backslash escapes', `{"email":"${'\\u0041'.repeat(600_000)}"}`],
    ];
    for (const [what, body] of cases) {
      for (const [route, path] of POST_ROUTES) {
        const answer = await rawExchange(t.url, 'POST', path, { 'x-api-key': t.test, 'idempotency-key': freshIdem(), 'content-type': 'application/json' }, body);
        assertSpecAnswer(route, answer, what);
        assert.equal(answer.status, 400, `${what}: ${answer.text.slice(0, 200)}`);
      }
    }
  });

  test('an ordinary client that sends a whole oversized body gets its 400 answer, not a reset', async () => {
    // fetch writes the full 17 MiB (over the 16 MiB limit) while the server has already answered: the connection must
    // stay open long enough for the answer to be read (no close with unread bytes, RFC 9112 §9.6).
    const body = `{"email":"${'c'.repeat(17 * 1024 * 1024)}@example.com"}`;
    for (let i = 0; i < 10; i += 1) {
      const res = await fetch(`${t.url}/v1/verify`, { method: 'POST', headers: { 'x-api-key': t.test, 'idempotency-key': freshIdem(), 'content-type': 'application/json' }, body });
      const text = await res.text();
      assertSpecAnswer('verify', { status: res.status, headers: Object.fromEntries(res.headers), text }, 'oversized body by fetch');
      assert.equal(res.status, 400);
    }
  });

  test('the server process’s memory stays bounded after the fuzzing and forty 4 MiB bodies', async () => {
    const big = `{"emails":[${Array.from({ length: 9_000 }, () => `"${'b'.repeat(400)}@example.com"`).join(',')}]}`;
    for (let i = 0; i < 40; i += 1) {
      const answer = await rawExchange(t.url, 'POST', '/v1/requests', { 'x-api-key': t.test, 'idempotency-key': freshIdem(), 'content-type': 'application/json' }, big);
      assertSpecAnswer('createBatch', answer, 'big body');
    }
    const rssAfter = await rssOf(t.service.pid);
    const growth = rssAfter - rssBefore;
    // Generous: forty 4 MiB bodies retained would be 160 MiB on their own, parsed copies more.
    assert.ok(growth < 128 * 1024 * 1024, `RSS grew by ${(growth / 1048576).toFixed(1)} MiB (from ${(rssBefore / 1048576).toFixed(1)} MiB)`);
    const health = await rawRequest(t.url, 'GET', '/healthz');
    assert.equal(health.status, 200);
  });
});
