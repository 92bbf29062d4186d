/**
 * The SDK checks answers with the interface's own schemas (src/api/schemas.ts): every example of
 * the OpenAPI document passes, and a body that breaks the contract anywhere, down to one enum
 * value inside an envelope, is named by the field that breaks it.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { checkBatchRequest, checkResultsPage, checkVerifyResult, MISSING_NEXT_CURSOR, asErrorBody } from '../../src/client/validate.js';
import { RESPONSE_EXAMPLES } from '../../src/api/examples.js';
import type { PresendEnvelope as WireEnvelope } from '../../src/client/types.js';
import type { PresendEnvelope as EngineEnvelope } from '../../src/core/types.js';

// Compile-time: whatever the engine produces is an envelope the SDK's (schema-derived) type accepts.
const engineFitsWire = (e: EngineEnvelope): WireEnvelope => e;
void engineFitsWire;

const example = (route: keyof typeof RESPONSE_EXAMPLES, status: number, name: string): Record<string, unknown> =>
  structuredClone(RESPONSE_EXAMPLES[route][status]?.[name]?.value) as Record<string, unknown>;

describe('the SDK’s answer checks', () => {
  test('every success example of the OpenAPI document passes its check', () => {
    const checks = { 'POST /v1/verify': checkVerifyResult, 'POST /v1/requests': checkBatchRequest, 'GET /v1/requests/{id}': checkBatchRequest, 'GET /v1/requests/{id}/results': checkResultsPage };
    let n = 0;
    for (const [route, byStatus] of Object.entries(RESPONSE_EXAMPLES)) {
      for (const examples of Object.values(byStatus)) {
        for (const [name, e] of Object.entries(examples)) {
          assert.equal(checks[route as keyof typeof checks](e.value), null, `${route} ${name}`);
          n += 1;
        }
      }
    }
    assert.ok(n >= 7);
  });

  test('an unknown decision deep inside the envelope is named by its field', () => {
    const body = example('POST /v1/verify', 200, 'deliverable');
    (body.presend as Record<string, unknown>).decision = 'maybe';
    assert.match(checkVerifyResult(body) ?? '', /^presend\.decision: /);
  });

  test('a missing required field is said to be missing, with its path', () => {
    const body = example('GET /v1/requests/{id}', 200, 'running');
    delete (body.request as Record<string, unknown>).finalized;
    assert.equal(checkBatchRequest(body), 'request.finalized is missing');
    assert.equal(checkBatchRequest({ counters: {}, requestId: 'r' }), 'request is missing');
  });

  test('an item of a results page that breaks the envelope is named by its index', () => {
    const page = example('GET /v1/requests/{id}/results', 200, 'page');
    const items = page.results as Array<Record<string, unknown>>;
    (items[1]?.presend as Record<string, unknown>).confidence = 1.5;
    assert.match(checkResultsPage(page) ?? '', /^results\[1\]\.presend\.confidence/);
  });

  test('a page without nextCursor is the spec’s sign of an incomplete export, told apart from other problems', () => {
    const page = example('GET /v1/requests/{id}/results', 200, 'page');
    delete page.nextCursor;
    delete page.jobId;
    assert.equal(checkResultsPage(page), MISSING_NEXT_CURSOR);
  });

  test('counters must be non-negative integers; a counter this SDK does not know yet is accepted', () => {
    const body = example('GET /v1/requests/{id}', 200, 'completed');
    (body.counters as Record<string, number>).someFutureCounter = 3;
    assert.equal(checkBatchRequest(body), null);
    (body.counters as Record<string, number>).pending = -1;
    assert.match(checkBatchRequest(body) ?? '', /^counters\.pending/);
  });

  test('an error body with a code this SDK does not know is still read as an error body', () => {
    assert.deepEqual(asErrorBody({ error: { code: 'a_future_code', message: 'm', requestId: 'r' } }), { code: 'a_future_code', message: 'm', requestId: 'r' });
    assert.equal(asErrorBody({ error: { message: 'm' } }), null);
  });
});
