import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { defaultWorld, startMailWorld } from '../../src/mailworld/index.js';
import type { MailWorld } from '../../src/mailworld/index.js';
import { loadConfig } from '../../src/config.js';
import { loadEngines } from '../../src/service/engines/load-engines.js';
import { startHarness, newIdem, waitFinal } from '../api/harness.js';
import type { Harness } from '../api/harness.js';

const ACTIONABLE = new Set(['DELIVERABLE', 'UNDELIVERABLE_NO_MAILBOX', 'UNDELIVERABLE_NO_MAIL_SERVER', 'CATCH_ALL', 'MAILBOX_FULL', 'DISPOSABLE', 'ROLE', 'SPAMTRAP', 'RISKY_SPAMTRAP', 'BLACKLISTED', 'UNDELIVERABLE_BOUNCED']);

describe('a live batch against the mail world', () => {
  let world: MailWorld;
  let h: Harness;
  before(async () => {
    world = await startMailWorld(defaultWorld());
    const env = {
      ...world.env(),
      PRESEND_SMTP_TIMEOUT_MS: '1500',
      PRESEND_DNS_TIMEOUT_MS: '500',
      PRESEND_RECHECK_DELAY_MS: '1200',
    };
    const config = loadConfig({ PRESEND_DATABASE_URL: 'sqlite::memory:', ...env });
    h = await startHarness({ env, engines: loadEngines(config) });
  });
  after(async () => {
    await h.close();
    await world.close();
  });

  test('every address is verified once over real DNS and SMTP, greylisting is rechecked, and credits are exact', async () => {
    const a = await h.newAccount(100);
    const emails = [
      'alice@acme.test',
      'bob.smith@acme.test',
      'nobody@acme.test',
      'former.employee@acme.test',
      'grey.listed@acme.test',
      'anyone@catchall.test',
      'x@nullmx.test',
      'x@gone.test',
      'alice@refused.test',
      'blocked.probe@acme.test',
      'ALICE@ACME.TEST',
      'alice@ACME.test',
    ];
    const r = await h.call('POST', '/v1/requests', { key: a.live, idem: newIdem(), body: { emails } });
    assert.equal(r.status, 202, JSON.stringify(r.body));
    assert.equal(r.body.counters.unique, 11);
    assert.equal(r.body.counters.creditsHeld, 11);
    const final = await waitFinal(h, a.live, r.body.request.id, 50_000);
    assert.equal(final.request.state, 'completed');
    const page = await h.call('GET', `/v1/requests/${r.body.request.id}/results?limit=200`, { key: a.live });
    const byEmail = new Map<string, { presend: { verdict: string | null; billing: { disposition: string } } }>(
      page.body.results.map((x: { email: string }) => [x.email, x]),
    );
    assert.equal(byEmail.size, 11);
    assert.equal(byEmail.get('alice@acme.test')?.presend.verdict, 'DELIVERABLE');
    assert.equal(byEmail.get('nobody@acme.test')?.presend.verdict, 'UNDELIVERABLE_NO_MAILBOX');
    assert.equal(byEmail.get('x@nullmx.test')?.presend.verdict, 'UNDELIVERABLE_NO_MAIL_SERVER');
    assert.equal(byEmail.get('anyone@catchall.test')?.presend.verdict, 'CATCH_ALL');
    // Greylisted for 1 s, rechecked after 1.2 s by the same worker: accepted then.
    assert.equal(byEmail.get('grey.listed@acme.test')?.presend.verdict, 'DELIVERABLE');
    assert.notEqual(byEmail.get('blocked.probe@acme.test')?.presend.verdict, 'UNDELIVERABLE_NO_MAILBOX');
    let debited = 0;
    for (const item of byEmail.values()) {
      const billed = item.presend.verdict !== null && ACTIONABLE.has(item.presend.verdict);
      assert.equal(item.presend.billing.disposition, billed ? 'debited' : 'released');
      if (billed) debited++;
    }
    assert.equal(final.counters.creditsDebited, debited);
    assert.equal(final.counters.creditsReleased, 11 - debited);
    assert.equal(final.counters.creditsHeld, 0);
    assert.deepEqual(await h.backend.ledger.getBalance(a.accountId), { granted: 100, debited, held: 0, available: 100 - debited });
  });

  test('a single live verification answers 200 with the engine’s metadata', async () => {
    const a = await h.newAccount(1);
    const r = await h.call('POST', '/v1/verify', { key: a.live, idem: newIdem(), body: { email: 'jane@google-hosted.test' } });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.presend.verdict, 'DELIVERABLE');
    assert.equal(r.body.presend.provider_family, 'google');
    assert.equal(r.body.engine.providerFamily, 'google');
    assert.ok(r.body.engine.attempts >= 1);
  });

  test('/metrics counts the SMTP sessions the live engine opened, next to the process metrics', async () => {
    const text = await (await fetch(`${h.url}/metrics`)).text();
    const sessions = Number(/^presend_smtp_sessions_total (\d+)$/m.exec(text)?.[1] ?? NaN);
    // The batch above probed four mail hosts (acme, catchall, google-hosted, refused).
    assert.ok(sessions >= 3, `presend_smtp_sessions_total ${sessions}`);
    assert.match(text, /^presend_smtp_sessions_active \d+$/m);
    assert.match(text, /^presend_process_cpu_user_seconds_total /m);
    assert.match(text, /^presend_verifications_total\{verdict="DELIVERABLE"\} [1-9]/m);
  });
});
