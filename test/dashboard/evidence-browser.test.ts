/**
 * Verdicts that explain themselves in a real browser, on SQLite and on PostgreSQL, checked with
 * axe: with a live key on a mail world's DNS and SMTP, "Try an address" shows how the verdict was
 * reached (the MX hosts, the conversation, the reply-table row), and a batch's page leads to
 * each address's own timeline (its RCPT, not its neighbours' in the same session).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { describeOnEveryBackend } from '../backends.js';
import { startHarness, newIdem } from '../api/harness.js';
import type { Harness } from '../api/harness.js';
import { assertAccessible, noBrowser, openBrowser, screenshot } from './browser.js';
import type { OwnerBrowser } from './browser.js';
import { newOwner, setPasswordAndSignIn } from './owners.js';
import type { TestOwner } from './owners.js';
import { defaultWorld, startMailWorld, type MailWorld } from '../../src/mailworld/index.js';
import { createEngine, createSandboxEngine } from '../../src/core/index.js';
import { loadConfig } from '../../src/config.js';
import { createOwnerKey } from '../../src/service/keys/managed-keys.js';
import { until } from '../until.js';

describeOnEveryBackend('evidence in the dashboard', (backend) => {
  let world: MailWorld;
  let h: Harness;
  let browser: OwnerBrowser;
  let owner: TestOwner;
  let liveKey: string;

  before(async () => {
    if (noBrowser) return;
    world = await startMailWorld(defaultWorld());
    const env = { ...world.env(), PRESEND_SMTP_TIMEOUT_MS: '2000' };
    h = await startHarness({ backend, env, engines: { live: createEngine(loadConfig(env)), sandbox: createSandboxEngine() } });
    owner = await newOwner(h.backend, h.url);
    const made = await createOwnerKey(h.backend.keyManagement, { accountId: owner.accountId, mode: 'live', label: 'Live', actor: { name: owner.email }, now: new Date() });
    liveKey = made.key;
    browser = await openBrowser();
  });
  after(async () => {
    await browser?.close();
    await h?.close();
    await world?.close();
  });

  test('Try an address shows the timeline of a live check', { skip: noBrowser }, async () => {
    const { page } = browser;
    await setPasswordAndSignIn(page, owner);
    await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Try an address' }).click();
    await page.getByLabel('Email address').fill('nobody@acme.test');
    await page.getByRole('button', { name: 'Verify' }).click();
    const timeline = page.getByRole('region', { name: 'How this verdict was reached' });
    await timeline.waitFor();
    const text = await timeline.innerText();
    assert.match(text, /Mail servers \(MX\) of acme\.test: looked up in \d+ ms: 2 MX host\(s\)/);
    assert.match(text, /mx1\.acme\.test \(preference 10, reached at 127\.[\d.]+\), mx2\.acme\.test \(preference 20\)/);
    assert.match(text, /Decided by the reply to RCPT TO from mx1\.acme\.test: "550 [^"]+", read by the reply-table row \S+ as no mailbox/);
    const conversation = page.getByRole('table', { name: /The conversation with the mail server/ });
    const lines = await conversation.innerText();
    assert.match(lines, /EHLO /);
    assert.match(lines, /STARTTLS/);
    assert.match(lines, /RCPT TO:<nobody@acme\.test>/);
    await assertAccessible(page, 'try an address with its evidence');
    await screenshot(page, 'evidence-try');
  });

  test('a batch leads to each address\'s own timeline', { skip: noBrowser }, async () => {
    const { page } = browser;
    const emails = ['alice@acme.test', 'nobody@acme.test', 'full.inbox@acme.test', 'anyone@catchall.test'];
    const r = await h.call('POST', '/v1/requests', { key: liveKey, idem: newIdem(), body: { emails } });
    const id = r.body.request.id as string;
    await until('the batch completes', async () => (await h.call('GET', `/v1/requests/${id}`, { key: liveKey })).body.request.state === 'completed');
    await until('its evidence is kept', async () => (await h.backend.evidence.ofItem(owner.accountId, id, 'anyone@catchall.test'))?.evidence ?? null);
    await page.goto(`${h.url}/dashboard/batches/${id}`);
    await page.getByRole('heading', { name: 'Explain an address' }).waitFor();
    await assertAccessible(page, 'batch page with its explain form');
    await page.getByRole('link', { name: 'anyone@catchall.test' }).click();
    const timeline = page.getByRole('region', { name: 'How this verdict was reached' });
    await timeline.waitFor();
    const text = await timeline.innerText();
    assert.match(text, /Catch-all probe: asked about the made-up address presend-[0-9a-f]+@catchall\.test, answered "250[^"]*"[^:]*: the domain accepts any address/);
    assert.match(text, /RCPT TO:<anyone@catchall\.test>/);
    await assertAccessible(page, 'an address of a batch with its evidence');

    // The form: an address typed as a person would (upper case domain) finds its item; it sees only its own RCPT.
    await page.goto(`${h.url}/dashboard/batches/${id}`);
    await page.getByLabel('Address of this batch').fill('full.inbox@ACME.test');
    await page.getByRole('button', { name: 'Show how it was decided' }).click();
    const own = await page.getByRole('table', { name: /The conversation with the mail server/ }).innerText();
    assert.match(own, /RCPT TO:<full\.inbox@acme\.test>/);
    assert.doesNotMatch(own, /RCPT TO:<(alice|nobody)@acme\.test>/);
    assert.match(await page.getByRole('main').innerText(), /Mailbox full/);

    const missing = await page.goto(`${h.url}/dashboard/batches/${id}/address?email=${encodeURIComponent('stranger@acme.test')}`);
    assert.equal(missing?.status(), 404);
    assert.match(await page.getByRole('main').innerText(), /This batch has no address/);
    await assertAccessible(page, 'an address the batch does not have');
  });
});
