import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { startHarness } from '../api/harness.js';
import type { Harness } from '../api/harness.js';
import { generateApiKey } from '../../src/service/keys/key-format.js';
import { assertSpecAnswer, rawRequest, rawSocket, routeOf } from './raw-http.js';
import type { RawHeaders } from './raw-http.js';

/**
 * Headers, paths, methods, queries and HTTP framing as an attacker sends them: duplicate,
 * empty and enormous `Idempotency-Key` and `X-Api-Key`, every route with every method, unknown
 * paths, broken percent-encoding, query junk and bytes that are not HTTP at all.
 */
const RUNS = 200;
/** Node's default limit on the whole header block (http.maxHeaderSize). */
const HEADER_LIMIT = 16 * 1024;

/** Header values a client can put on the wire: visible ASCII and Latin-1 (RFC 9110 §5.5 obs-text). */
const headerText = (minLength: number, maxLength: number) =>
  fc.string({ unit: fc.integer({ min: 0x20, max: 0xff }).filter((c) => c !== 0x7f).map((c) => String.fromCharCode(c)), minLength, maxLength });

const idempotencyKey = fc.oneof(
  fc.constant(undefined),
  fc.constantFrom('', ' ', '\t'),
  headerText(1, 64),
  headerText(1_000, 12_000),
  headerText(17_000, 24_000),
  fc.tuple(headerText(1, 32), headerText(0, 32)).map((pair) => [...pair]),
);

let idem = 0;
const freshIdem = () => `routes-${process.pid}-${++idem}`;
const headerBytes = (headers: RawHeaders) => Object.entries(headers).reduce((n, [k, v]) => n + k.length + 4 + (Array.isArray(v) ? v.join('').length + 4 * v.length : v.length), 0);

describe('API fuzzing: headers, paths, methods, queries and framing', () => {
  let h: Harness;
  let account: { accountId: string; live: string; test: string };
  let requestId = '';
  let realCursor: string | null = null;

  before(async () => {
    h = await startHarness();
    account = await h.newAccount(1_000);
    const created = await h.call('POST', '/v1/requests', { key: account.test, idem: freshIdem(), body: { emails: Array.from({ length: 30 }, (_, i) => `user${i}@example.com`) } });
    assert.equal(created.status, 202);
    requestId = created.body.request.id;
    const page = await h.call('GET', `/v1/requests/${requestId}/results?limit=2`, { key: account.test });
    realCursor = page.body.nextCursor;
  });
  after(async () => h?.close());

  /** Every way of presenting (or failing to present) a key; `valid` says whether it should pass. */
  const credentials = (): fc.Arbitrary<{ headers: RawHeaders; valid: boolean }> =>
    fc.oneof(
      fc.constantFrom<{ headers: RawHeaders; valid: boolean }>(
        { headers: { 'x-api-key': account.test }, valid: true },
        { headers: { 'x-api-key': account.live }, valid: true },
        { headers: { authorization: `Bearer ${account.test}` }, valid: true },
        { headers: { authorization: `bearer   ${account.test}` }, valid: true },
        { headers: {}, valid: false },
        { headers: { 'x-api-key': '' }, valid: false },
        { headers: { 'x-api-key': [account.test, account.test] }, valid: false },
        { headers: { 'x-api-key': [account.test, 'junk'] }, valid: false },
        { headers: { 'x-api-key': `${account.test}x` }, valid: false },
        { headers: { 'x-api-key': account.test.toUpperCase() }, valid: false },
        { headers: { 'x-api-key': account.test.slice(0, -1) }, valid: false },
        { headers: { authorization: `Basic ${Buffer.from(`${account.test}:`).toString('base64')}` }, valid: false },
        { headers: { authorization: `Bearer ${account.test} extra` }, valid: false },
        { headers: { authorization: 'Bearer' }, valid: false },
        { headers: { authorization: [`Bearer ${account.test}`, `Bearer ${account.live}`] }, valid: false },
      ),
      fc.constant(null).map(() => ({ headers: { 'x-api-key': generateApiKey(Math.random() < 0.5 ? 'live' : 'test').key }, valid: false })),
      headerText(0, 200).map((k) => ({ headers: { 'x-api-key': k }, valid: false })),
      headerText(2_000, 20_000).map((k) => ({ headers: { 'x-api-key': k }, valid: false })),
      headerText(2_000, 12_000).map((k) => ({ headers: { authorization: `Bearer ${k}` }, valid: false })),
    );

  test('abused Idempotency-Key and key headers on the POST routes keep the contract: 401 for a bad key, 400 for a missing Idempotency-Key', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('/v1/verify', '/v1/requests'), credentials(), idempotencyKey, async (path, cred, key) => {
        const headers: RawHeaders = { ...cred.headers, 'content-type': 'application/json' };
        if (key !== undefined) headers['idempotency-key'] = key;
        const body = path === '/v1/verify' ? '{"email":"deliverable@example.com","timeoutMs":2000}' : '{"emails":["deliverable@example.com"]}';
        const answer = await rawRequest(h.url, 'POST', path, headers, body);
        const what = `${path} ${JSON.stringify(headers).slice(0, 300)}`;
        if (headerBytes(headers) > HEADER_LIMIT) {
          assertSpecAnswer('framing', answer, what);
          return;
        }
        assertSpecAnswer(routeOf('POST', path), answer, what);
        if (!cred.valid) assert.equal(answer.status, 401, what);
        else if (key === undefined || (typeof key === 'string' && key.trim() === '')) assert.equal(answer.status, 400, what);
        else assert.ok(answer.status < 300 || answer.status === 400, `${what} → ${answer.status} ${answer.text}`);
      }),
      { numRuns: RUNS },
    );
  });

  test('an Idempotency-Key at the 255-character cap replays the same request, only for its own body; a longer one is refused', async () => {
    const key = 'k'.repeat(255);
    const body = { emails: ['deliverable@example.com', 'role@example.com'] };
    const enormous = await h.call('POST', '/v1/requests', { key: account.test, idem: 'k'.repeat(12_000), body });
    assert.equal(enormous.status, 400);
    assert.equal(enormous.body.error.code, 'invalid_request');
    const first = await h.call('POST', '/v1/requests', { key: account.test, idem: key, body });
    const again = await h.call('POST', '/v1/requests', { key: account.test, idem: key, body });
    const other = await h.call('POST', '/v1/requests', { key: account.test, idem: key, body: { emails: ['x@example.com'] } });
    assert.equal(first.status, 202);
    assert.equal(again.status, 200);
    assert.equal(again.body.request.id, first.body.request.id);
    assert.equal(other.status, 422);
  });

  const segment = fc.oneof(fc.uuid(), fc.string({ maxLength: 40 }).map(encodeURIComponent), fc.constantFrom('', '..', '%', '%E0%A4%A', '%00', '%2F', 'x'.repeat(500), '%FF%FE', '..%2F..%2Fhealthz'));
  const pathArb = fc.oneof(
    fc.constantFrom('/v1/verify', '/v1/requests', '/v1/verify/', '/v1/requests/', '/v1', '/', '/V1/VERIFY', '/v1//verify', '/v2/verify', '/v1/requests/x/results/extra'),
    segment.map((s) => `/v1/requests/${s}`),
    segment.map((s) => `/v1/requests/${s}/results`),
    fc.tuple(segment, segment).map(([a, b]) => `/${a}/${b}`),
    fc.webPath().filter((p) => p.startsWith('/') && !/^\/(healthz|readyz|metrics|openapi\.json|docs)\/?$/.test(p)),
  );
  const queryArb = fc.option(
    fc.array(fc.tuple(fc.constantFrom('limit', 'cursor', 'offset', 'x', ''), fc.oneof(fc.integer().map(String), fc.string({ maxLength: 30 }), fc.constant(''))), { maxLength: 5 }),
    { nil: undefined },
  );

  test('every method on every path answers the statuses of the route it reaches (404 outside the four routes)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'TRACE', 'PROPFIND'), pathArb, queryArb, fc.boolean(), async (method, path, query, withKey) => {
        const q = query ? `?${query.map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('&')}` : '';
        const headers: RawHeaders = withKey ? { 'x-api-key': account.test, 'idempotency-key': freshIdem() } : {};
        const body = method === 'POST' ? '{"email":"deliverable@example.com"}' : undefined;
        if (body) headers['content-type'] = 'application/json';
        const answer = await rawRequest(h.url, method, path + q, headers, body);
        const route = routeOf(method, path);
        assertSpecAnswer(route, answer, `${method} ${path}${q}`);
        if (route !== 'elsewhere' && !withKey && answer.status !== 404) assert.equal(answer.status, 401);
      }),
      { numRuns: RUNS },
    );
  });

  test('any query on the results route is 200 with a clamped limit or 404, never 400', async () => {
    await fc.assert(
      fc.asyncProperty(queryArb, fc.boolean(), async (query, useRealCursor) => {
        const pairs = [...(query ?? [])];
        if (useRealCursor && realCursor) pairs.push(['cursor', realCursor]);
        const q = pairs.map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('&');
        const answer = await rawRequest(h.url, 'GET', `/v1/requests/${requestId}/results?${q}`, { 'x-api-key': account.test });
        assertSpecAnswer('results', answer, q);
        if (answer.status === 200) {
          const page = JSON.parse(answer.text) as { limit: number; offset: number; results: unknown[] };
          assert.ok(page.limit >= 1 && page.limit <= 200 && page.results.length <= page.limit, q);
          assert.ok(Number.isInteger(page.offset) && page.offset >= 0, q);
        }
      }),
      { numRuns: RUNS },
    );
  });

  test('after all the fuzzing, /metrics holds a bounded set of series: no label per path, id or header', async () => {
    const metrics = await rawRequest(h.url, 'GET', '/metrics');
    assert.equal(metrics.status, 200);
    const series = metrics.text.split('\n').filter((l) => l.startsWith('presend_http_request_duration_seconds_count'));
    // methods × the routes Fastify knows (or "unmatched") × statuses: dozens, not thousands.
    assert.ok(series.length < 150, `${series.length} latency series:\n${series.slice(0, 20).join('\n')}`);
    for (const line of series) assert.doesNotMatch(line, /route="\/v1\/requests\/[0-9a-f-]{36}/, 'a request id became a label');
  });

  test('bytes that are not HTTP get the spec error body with X-Request-Id, or no answer at all', async () => {
    const garbage = fc.oneof(
      fc.uint8Array({ minLength: 1, maxLength: 400 }).map((b) => Buffer.from(b)),
      fc.string({ unit: 'binary', maxLength: 200 }).map((s) => `${s}\r\n\r\n`),
      fc.constantFrom(
        'GET /v1/requests/x HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello',
        'POST /v1/verify HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\nzz\r\n',
        'POST /v1/verify HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nnot-hex\r\n',
        `GET /v1/requests/x HTTP/1.1\r\nHost: x\r\nX-Api-Key: ${'a'.repeat(20_000)}\r\n\r\n`,
        'GET /v1/requests/x HTTP/1.1\r\nHo st: x\r\n\r\n',
        'GET /v1/requests/x HTTP/9.9\r\n\r\n',
        'GET\x00/ HTTP/1.1\r\n\r\n',
        'GET / HTTP/1.1\nHost: x\n\n',
      ),
    );
    await fc.assert(
      fc.asyncProperty(garbage, async (bytes) => {
        const answer = await rawSocket(h.url, bytes);
        if (answer.status === 0) {
          assert.equal(answer.text, '', `no status line but some bytes: ${answer.text.slice(0, 100)}`);
          return;
        }
        // Garbage that happens to parse as a request gets that request's answer.
        if (answer.status !== 400) {
          const line = /^([A-Z]+) (\S+) HTTP\/1\.[01]\r?\n/.exec(bytes.toString('latin1'));
          assert.ok(line, `${answer.status} for non-HTTP bytes`);
          assertSpecAnswer(routeOf(line[1] ?? '', line[2] ?? ''), answer, bytes.toString('latin1').slice(0, 100));
          return;
        }
        assertSpecAnswer('framing', answer, bytes.toString('latin1').slice(0, 100));
      }),
      { numRuns: RUNS },
    );
  });
});
