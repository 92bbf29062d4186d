/**
 * The dashboard's protections over plain HTTP: the guard, the form tokens and the origin check,
 * the cookies' flags (Secure only behind TLS, as a trusted proxy says), the
 * Content-Security-Policy, and the trust-proxy setting.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness } from '../api/harness.js';
import type { Harness } from '../api/harness.js';
import { newOwner } from './owners.js';
import type { TestOwner } from './owners.js';
import { OwnerAuth } from '../../src/service/owners/owner-sign-in.js';
import { ConfigError, loadConfig } from '../../src/config.js';
import Database from 'better-sqlite3';
import { join } from 'node:path';

function cookies(res: Response): Map<string, string> {
  const found = new Map<string, string>();
  for (const line of res.headers.getSetCookie()) found.set(line.split('=')[0] as string, line);
  return found;
}

const token = (html: string) => /name="_csrf" value="([^"]+)"/.exec(html)?.[1] ?? '';
const value = (setCookie: string | undefined) => (setCookie ?? '').split(';')[0] as string;

describe('dashboard protections', () => {
  let h: Harness;
  let owner: TestOwner;
  before(async () => {
    h = await startHarness({ env: { PRESEND_TRUST_PROXY: '127.0.0.1' } });
    owner = await newOwner(h.backend, h.url);
    const link = owner.link.split('/').at(-1) as string;
    assert.equal((await new OwnerAuth(h.backend).setPassword(link, owner.password)).kind, 'set');
  });
  after(async () => h?.close());

  async function signIn(headers: Record<string, string> = {}): Promise<{ session: string; res: Response }> {
    const page = await fetch(`${h.url}/dashboard/sign-in`, { headers });
    const pre = value(cookies(page).get('presend_csrf'));
    const body = new URLSearchParams({ _csrf: token(await page.text()), email: owner.email, password: owner.password, next: '/dashboard' });
    const res = await fetch(`${h.url}/dashboard/sign-in`, { method: 'POST', redirect: 'manual', headers: { ...headers, cookie: pre, 'content-type': 'application/x-www-form-urlencoded' }, body });
    return { session: value(cookies(res).get('presend_session')), res };
  }

  test('pages need a signed-in owner, and every page carries a strict Content-Security-Policy', async () => {
    const res = await fetch(`${h.url}/dashboard/keys`, { redirect: 'manual' });
    assert.equal(res.status, 303);
    assert.equal(res.headers.get('location'), '/dashboard/sign-in?next=%2Fdashboard%2Fkeys');
    const page = await fetch(`${h.url}/dashboard/sign-in`);
    const csp = page.headers.get('content-security-policy') ?? '';
    assert.match(csp, /default-src 'none'/);
    assert.match(csp, /script-src 'self'(;|$)/);
    assert.match(csp, /style-src 'self'(;|$)/);
    assert.match(csp, /frame-ancestors 'none'/);
    assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/);
    assert.equal(page.headers.get('x-content-type-options'), 'nosniff');
    const pre = cookies(page).get('presend_csrf') ?? '';
    assert.match(pre, /HttpOnly/);
    assert.match(pre, /SameSite=Strict/);
    assert.match(pre, /Path=\/dashboard/);
  });

  test('a page whose database fails is a 503 page that says so (a bug is the 500 one)', async () => {
    const { session } = await signIn();
    const renameTable = (from: string, to: string) => {
      const db = new Database(join(h.dir, 'presend.db'));
      try {
        db.exec(`ALTER TABLE ${from} RENAME TO ${to}`);
      } finally {
        db.close();
      }
    };
    renameTable('key_events', 'key_events_away');
    try {
      const res = await fetch(`${h.url}/dashboard/keys`, { headers: { cookie: session } });
      assert.equal(res.status, 503);
      const text = await res.text();
      assert.match(text, /The database is unavailable right now; try again in a moment\./);
      assert.doesNotMatch(text, /key_events|SqliteError|\.ts:/);
    } finally {
      renameTable('key_events_away', 'key_events');
    }
    assert.equal((await fetch(`${h.url}/dashboard/keys`, { headers: { cookie: session } })).status, 200);
  });

  test('the session cookie is HttpOnly and SameSite, and Secure only when a trusted proxy says the request came over TLS', async () => {
    const plain = await signIn();
    assert.equal(plain.res.status, 303);
    const line = cookies(plain.res).get('presend_session') ?? '';
    assert.match(line, /HttpOnly/);
    assert.match(line, /SameSite=Lax/);
    assert.doesNotMatch(line, /Secure/);
    const tls = await signIn({ 'x-forwarded-proto': 'https' });
    assert.match(cookies(tls.res).get('presend_session') ?? '', /; Secure/);
  });

  test('a state change without its form token, or from another site, is refused and changes nothing', async () => {
    const { session } = await signIn();
    const keysBefore = (await h.backend.keyManagement.listKeys(owner.accountId)).length;
    const page = await fetch(`${h.url}/dashboard/keys`, { headers: { cookie: session } });
    const good = token(await page.text());
    const post = (body: Record<string, string>, headers: Record<string, string> = {}) =>
      fetch(`${h.url}/dashboard/keys`, { method: 'POST', redirect: 'manual', headers: { cookie: session, 'content-type': 'application/x-www-form-urlencoded', ...headers }, body: new URLSearchParams(body) });
    assert.equal((await post({ label: 'x', mode: 'test' })).status, 403, 'no token');
    assert.equal((await post({ label: 'x', mode: 'test', _csrf: 'forged' })).status, 403, 'a wrong token');
    assert.equal((await post({ label: 'x', mode: 'test', _csrf: good }, { 'sec-fetch-site': 'cross-site' })).status, 403, 'cross-site');
    assert.equal((await post({ label: 'x', mode: 'test', _csrf: good }, { origin: 'http://evil.example' })).status, 403, 'another origin');
    assert.equal((await h.backend.keyManagement.listKeys(owner.accountId)).length, keysBefore);
    // Another session's token does not fit this session.
    const other = await signIn();
    const otherToken = token(await (await fetch(`${h.url}/dashboard/keys`, { headers: { cookie: other.session } })).text());
    assert.equal((await post({ label: 'x', mode: 'test', _csrf: otherToken })).status, 403, "another session's token");
    const ok = await post({ label: 'x', mode: 'test', _csrf: good }, { 'sec-fetch-site': 'same-origin', origin: h.url });
    assert.equal(ok.status, 303);
    assert.equal((await h.backend.keyManagement.listKeys(owner.accountId)).length, keysBefore + 1);
  });

  test('the dashboard adds no route under /v1, and its pages stay out of /openapi.json', async () => {
    const spec = (await (await fetch(`${h.url}/openapi.json`)).json()) as { paths: Record<string, unknown> };
    assert.deepEqual(Object.keys(spec.paths).sort(), ['/v1/requests', '/v1/requests/{id}', '/v1/requests/{id}/results', '/v1/verify']);
    const missing = await fetch(`${h.url}/dashboard/no-such-page`, { redirect: 'manual' });
    assert.equal(missing.status, 404);
    assert.match(missing.headers.get('content-type') ?? '', /^text\/html/, 'a page, not the API error body');
  });

  test('PRESEND_TRUST_PROXY takes false, true, a hop count or addresses and ranges, and refuses anything else', () => {
    assert.equal(loadConfig({}).trustProxy, false);
    assert.equal(loadConfig({ PRESEND_TRUST_PROXY: 'true' }).trustProxy, true);
    assert.equal(loadConfig({ PRESEND_TRUST_PROXY: '2' }).trustProxy, 2);
    assert.deepEqual(loadConfig({ PRESEND_TRUST_PROXY: '10.0.0.0/8, ::1' }).trustProxy, ['10.0.0.0/8', '::1']);
    assert.throws(() => loadConfig({ PRESEND_TRUST_PROXY: 'everyone' }), ConfigError);
  });
});
