/**
 * A catch-all domain of the mail world (real DNS and SMTP on loopback, the live engine) resolved by
 * the account's own feedback: one batch over the domain answers DELIVERABLE (delivery_history) for
 * the address with a recent delivery, UNDELIVERABLE_BOUNCED for the one that hard-bounced (never
 * probed: the mail world's recorder sees no RCPT for it), and CATCH_ALL for the one with neither.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { defaultWorld, startMailWorld } from '../../src/mailworld/index.js';
import type { MailWorld } from '../../src/mailworld/index.js';
import { loadConfig } from '../../src/config.js';
import { loadEngines } from '../../src/service/engines/load-engines.js';
import { allResultItems, newIdem, startHarness, waitFinal } from '../api/harness.js';
import type { Harness } from '../api/harness.js';

let world: MailWorld;
let h: Harness;
before(async () => {
  world = await startMailWorld(defaultWorld());
  const env = { ...world.env(), PRESEND_SMTP_TIMEOUT_MS: '1500', PRESEND_DNS_TIMEOUT_MS: '500' };
  const config = loadConfig({ PRESEND_DATABASE_URL: 'sqlite::memory:', ...env });
  h = await startHarness({ env, engines: loadEngines(config) });
});
after(async () => {
  await h.close();
  await world.close();
});

test('a batch over a catch-all domain gives a delivery, a bounce and nothing three different answers', async () => {
  const a = await h.newAccount(10);
  const recent = new Date(Date.now() - 86_400_000).toISOString();
  await h.backend.feedback.record({
    accountId: a.accountId,
    source: 'csv',
    events: [
      { email: 'delivered@catchall.test', kind: 'delivery', at: recent, code: null, eventId: 'd1' },
      { email: 'bounced@catchall.test', kind: 'hard_bounce', at: recent, code: '5.1.1', eventId: 'b1' },
    ],
    now: new Date(),
  });
  const emails = ['delivered@catchall.test', 'bounced@catchall.test', 'nobody.known@catchall.test'];
  const r = await h.call('POST', '/v1/requests', { key: a.live, idem: newIdem(), body: { emails } });
  assert.equal(r.status, 202, JSON.stringify(r.body));
  const final = await waitFinal(h, a.live, r.body.request.id, 50_000);
  assert.equal(final.request.state, 'completed');
  const items = await allResultItems<{ email: string; presend: { verdict: string; decision: string; evidence_class: string; history: unknown } }>(h, a.live, r.body.request.id);
  const by = new Map(items.map((i) => [i.email, i.presend]));
  assert.deepEqual(
    emails.map((e) => [by.get(e)?.verdict, by.get(e)?.decision, by.get(e)?.evidence_class]),
    [
      ['DELIVERABLE', 'send', 'delivery_history'],
      ['UNDELIVERABLE_BOUNCED', 'suppress', 'bounce_history'],
      ['CATCH_ALL', 'send_with_caution', 'smtp_catch_all_probe'],
    ],
  );
  assert.equal(by.get('nobody.known@catchall.test')?.history, null);
  assert.notEqual(by.get('delivered@catchall.test')?.history, null);
  const asked = world.recorder.sessions().flatMap((s) => s.commands.map((c) => c.command).filter((c) => /^RCPT TO/i.test(c)));
  assert.ok(asked.some((d) => d.includes('delivered@catchall.test')), `the delivered address was probed: ${asked.join(' | ')}`);
  assert.ok(!asked.some((d) => d.includes('bounced@catchall.test')), 'the bounced address was never probed');
});
