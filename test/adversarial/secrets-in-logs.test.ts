import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { startLiveService, runCli } from '../client/live-service.js';
import { rawRequest } from './raw-http.js';
import { addAccounts } from './fuzz-target.js';
import type { RawHeaders } from './raw-http.js';
import { sameRateLimits } from '../api/harness.js';
import { until } from '../until.js';
import { createOwner, DashboardBrowser } from './dashboard-client.js';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

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
      const call = (method: string, path: string, auth: RawHeaders, body?: unknown, idem = `secrets-${++n}`) =>
        rawRequest(service.baseUrl, method, path, { ...auth, 'idempotency-key': idem, ...(body === undefined ? {} : { 'content-type': 'application/json' }) }, body === undefined ? undefined : JSON.stringify(body));
      const statuses = new Set<number>();
      /** Replays of the slow checks answered 202: each answers 200 once its check has finished (and logged). */
      const slowReplays: Array<() => ReturnType<typeof call>> = [];
      for (const key of keys) {
        for (const auth of [{ 'x-api-key': key }, { authorization: `Bearer ${key}` }] as RawHeaders[]) {
          const verify = await call('POST', '/v1/verify', auth, { email: 'deliverable@example.com' });
          const slowBody = { email: 'slow@example.com', timeoutMs: 50 };
          const slowIdem = `secrets-slow-${++n}`;
          const slow = await call('POST', '/v1/verify', auth, slowBody, slowIdem);
          if (slow.status === 202) slowReplays.push(() => call('POST', '/v1/verify', auth, slowBody, slowIdem));
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
      assert.ok(slowReplays.length > 0, 'some slow checks were left running');
      await until('the slow checks finish and log', async () => {
        for (const replay of slowReplays) if ((await replay()).status !== 200) return false;
        return true;
      }, 30_000, 100);
      // Rate limit reached (burst 30, 1/s): the 429 path is logged too.
      for (let i = 0; i < 35; i += 1) statuses.add((await call('GET', '/v1/requests/00000000-0000-4000-8000-000000000000', { 'x-api-key': keys[0] ?? '' })).status);
      for (const s of [200, 202, 400, 401, 402, 404, 429]) assert.ok(statuses.has(s), `status ${s} was exercised: ${[...statuses].join(',')}`);
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

/**
 * Issue 21, defect 4: the one-time set-password link was logged (every request's URL, at info
 * level), so a log reader could set an owner's password first. A whole dashboard flow against a
 * real `presend serve` logging at trace — the operator's link, a mistyped copy of it, setting
 * the password, a wrong and a right sign-in, a key made and shown, an upload (its form token in
 * the URL), a page asked for after signing out, signing out — and then no secret in the output:
 * not the link's token, the passwords, the key, any cookie value or any form token.
 */
describe('secrets: the dashboard flow leaves none in the logs', () => {
  test('a serve process logging at trace writes no link token, password, key, cookie or form token', async (t) => {
    const service = await startLiveService({ env: { PRESEND_LOG_LEVEL: 'trace' } });
    const dir = await mkdtemp(join(tmpdir(), 'presend-secrets-'));
    t.after(async () => {
      await service.stop();
      await rm(dir, { recursive: true, force: true });
    });
    const password = 'correct horse battery staple 21';
    const wrong = 'wrong horse battery staple 21';
    const owner = await createOwner(service.adminEnv, service.baseUrl, 'dash', 'ann@dash.example');
    const linkToken = owner.link.split('/').at(-1) as string;
    const browser = new DashboardBrowser(service.baseUrl);
    // A copy of the link with something after it matches no route: still not logged.
    assert.equal((await fetch(`${owner.link}/x`)).status, 404);
    await browser.setPassword(owner.link, password);
    assert.equal((await browser.postForm('/dashboard/sign-in', { _csrf: (await browser.page('/dashboard/sign-in')).token, email: owner.email, password: wrong })).status, 401);
    await browser.signIn(owner.email, password);
    const key = await browser.createKey('from the dashboard');
    const file = join(dir, 'list.csv');
    await writeFile(file, 'email\nann@example.com\n');
    await browser.upload(file, 'list.csv');
    const uploadToken = (await browser.page('/dashboard/lists')).token;
    await browser.signOut();
    // Signed out, the upload URL (its token in the query) is redirected to sign-in with it in `next`.
    const bounced = await fetch(`${service.baseUrl}/dashboard/lists?_csrf=${encodeURIComponent(uploadToken)}`, { redirect: 'manual' });
    assert.equal(bounced.status, 303);
    assert.equal((await fetch(`${service.baseUrl}${bounced.headers.get('location') ?? ''}`)).status, 200);
    await service.stop();

    const logs = service.logs();
    const secrets = new Map<string, string>([
      ["the link's token", linkToken],
      ['the password', password],
      ['a wrong password', wrong],
      ['the new key', key],
      ['the new key, after its prefix', secretOf(key)],
      ...[...browser.secrets].map((value, i): [string, string] => [`cookie or form token ${i + 1}`, value]),
    ]);
    assert.ok(browser.secrets.size >= 4, 'the session cookie, the pre-session cookie and form tokens were seen');
    for (const [what, secret] of secrets) {
      assert.ok(secret.length >= 16, `${what} is long enough to search for`);
      assert.ok(!logs.includes(secret), `${what} is in the logs: ${logs.split('\n').find((line) => line.includes(secret))?.slice(0, 600)}`);
      assert.ok(!logs.includes(encodeURIComponent(secret)), `${what} is in the logs, URL-encoded`);
    }
    assert.ok(logs.includes('"/dashboard/set-password/[redacted]"'), `the link's requests are logged, redacted:\n${logs.slice(0, 2000)}`);
  });
});

