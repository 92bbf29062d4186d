import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { startLiveService, runCli } from '../client/live-service.js';
import { rawRequest } from './raw-http.js';
import { addAccounts } from './fuzz-target.js';
import type { RawHeaders } from './raw-http.js';
import { sameRateLimits } from '../api/harness.js';

/**
 * docs/design.md §3: keys never appear in logs (X-Api-Key and Authorization are redacted). A real
 * `presend serve` logs at debug level while every route is called with every key in both
 * forms, on success and error paths; then its whole output is searched for the keys.
 */

/** The part of a key after its display prefix (`ps_live.` + 6), which only its holder knows. */
const secretOf = (key: string) => key.slice('ps_live.'.length + 6);

/** Every 16-character window of the secret: a partial leak is a leak too. */
function leakedPieces(logs: string, key: string): string[] {
  const secret = secretOf(key);
  const found: string[] = [];
  for (let i = 0; i + 16 <= secret.length; i += 1) if (logs.includes(secret.slice(i, i + 16))) found.push(secret.slice(i, i + 16));
  return found;
}

describe('secrets: keys never reach the logs', () => {
  // debug logs everything info does, and more.
  for (const level of ['debug']) {
    test(`a serve process logging at ${level} never writes a key, whatever the route, form or outcome`, async (t) => {
      const service = await startLiveService({ env: { PRESEND_LOG_LEVEL: level, PRESEND_SANDBOX_SLOW_DELAY_MS: '400', ...sameRateLimits(1, 30) } });
      t.after(() => service.stop());
      // One account made the operator's way (admin commands), the rest straight in the store.
      await service.createAccount('alpha', 50);
      const keys = [await service.createKey('alpha'), await service.createKey('alpha', { test: true })];
      const [beta, revokedOwner] = await addAccounts(service, [
        { name: 'beta', credits: 0 },
        { name: 'gamma', credits: 5 },
      ]);
      assert.ok(beta && revokedOwner);
      keys.push(beta.live, beta.test);
      const revoke = await runCli(['keys', 'revoke', revokedOwner.test.slice(0, 'ps_test.'.length + 6), '--account', 'gamma', '--yes'], service.adminEnv);
      assert.equal(revoke.code, 0, revoke.stderr);
      keys.push(revokedOwner.test);

      let n = 0;
      const call = (method: string, path: string, auth: RawHeaders, body?: unknown) =>
        rawRequest(service.baseUrl, method, path, { ...auth, 'idempotency-key': `secrets-${++n}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) }, body === undefined ? undefined : JSON.stringify(body));
      const statuses = new Set<number>();
      for (const key of keys) {
        for (const auth of [{ 'x-api-key': key }, { authorization: `Bearer ${key}` }] as RawHeaders[]) {
          const verify = await call('POST', '/v1/verify', auth, { email: 'deliverable@example.com' });
          const slow = await call('POST', '/v1/verify', auth, { email: 'slow@example.com', timeoutMs: 50 });
          const batch = await call('POST', '/v1/requests', auth, { emails: ['deliverable@example.com', 'undeliverable@example.com'] });
          const id = batch.status === 202 ? (JSON.parse(batch.text) as { request: { id: string } }).request.id : '00000000-0000-4000-8000-000000000000';
          const status = await call('GET', `/v1/requests/${id}`, auth);
          const results = await call('GET', `/v1/requests/${id}/results?limit=1`, auth);
          // Error paths: the key in a body, a malformed address, a near miss of the key.
          const keyAsEmail = await call('POST', '/v1/verify', auth, { email: key });
          const unknownField = await call('POST', '/v1/requests', auth, { emails: ['a@example.com'], apiKey: key });
          const nearMiss = await call('GET', `/v1/requests/${id}`, { 'x-api-key': `${key.slice(0, -1)}!` });
          for (const r of [verify, slow, batch, status, results, keyAsEmail, unknownField, nearMiss]) statuses.add(r.status);
        }
      }
      // Rate limit reached (burst 30, 1/s): the 429 path is logged too.
      for (let i = 0; i < 35; i += 1) statuses.add((await call('GET', '/v1/requests/00000000-0000-4000-8000-000000000000', { 'x-api-key': keys[0] ?? '' })).status);
      for (const s of [200, 202, 400, 401, 402, 404, 429]) assert.ok(statuses.has(s), `status ${s} was exercised: ${[...statuses].join(',')}`);
      await new Promise((resolve) => setTimeout(resolve, 600)); // the slow checks finish and log
      await service.stop();

      const logs = service.logs();
      assert.ok(logs.includes('"reqId"'), `the server logged requests at ${level}:\n${logs.slice(0, 500)}`);
      for (const key of keys) {
        assert.ok(!logs.includes(key), `a whole key is in the logs (${key.slice(0, 14)}…)`);
        assert.deepEqual(leakedPieces(logs, key), [], `part of a key is in the logs (${key.slice(0, 14)}…)`);
      }
      // If a header ever reaches the logs, it is through the redaction.
      if (/"x-api-key"|"authorization"/i.test(logs)) assert.ok(logs.includes('[redacted]'), 'headers are logged without the redaction marker');
    });
  }
});
