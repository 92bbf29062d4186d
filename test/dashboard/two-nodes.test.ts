/**
 * The dashboard on PostgreSQL with two API nodes behind a balancer (docs/design.md §1, §7): a
 * session made on one node is honoured by the other, a key created through one is shown once
 * by the other (the sealed flash lives in the store), a batch started on one is followed live
 * on the other, and signing out everywhere on one ends the session on both.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { openBackend } from '../../src/store/open-backend.js';
import type { Backend } from '../../src/store/backend.js';
import { freshDatabase } from '../backends.js';
import { startApiNode, startWorker } from '../scale/presend-process.js';
import type { PresendProcess } from '../scale/presend-process.js';
import { startBalancer } from './balancer.js';
import type { Balancer } from './balancer.js';
import { chooseOption, noBrowser, openBrowser } from './browser.js';
import type { OwnerBrowser } from './browser.js';
import { newOwner, setPasswordAndSignIn } from './owners.js';
import type { TestOwner } from './owners.js';

const fresh = await freshDatabase();
const skip = fresh.kind === 'skip' ? fresh.reason : noBrowser;

describe('the dashboard on PostgreSQL behind a balancer, two API nodes', { skip, timeout: 170_000 }, () => {
  let store: Backend;
  const nodes: Array<{ proc: PresendProcess; url: string }> = [];
  let worker: PresendProcess | null = null;
  let balancer: Balancer;
  let browser: OwnerBrowser;
  let owner: TestOwner;

  before(async () => {
    if (fresh.kind !== 'ready') return;
    store = await openBackend(fresh.db.url);
    const env = { PRESEND_DATABASE_URL: fresh.db.url, PRESEND_TRUST_PROXY: '127.0.0.1', PRESEND_WORKER_POLL_MS: '100' };
    nodes.push(...(await Promise.all([startApiNode('api-a', env), startApiNode('api-b', env)])));
    worker = await startWorker('worker', env);
    balancer = await startBalancer(nodes.map((n) => n.url));
    owner = await newOwner(store, balancer.url, 100);
    browser = await openBrowser();
  });

  after(async () => {
    await browser?.close();
    await balancer?.close();
    await Promise.all([...nodes.map((n) => n.proc.stop()), worker?.stop()]);
    await store?.close();
    if (fresh.kind === 'ready') await fresh.db.drop();
  });

  test('a session made on one node is honoured by the other, and so is the one-time view of a new key', async () => {
    const { page } = browser;
    balancer.target = 0;
    await setPasswordAndSignIn(page, owner);
    assert.ok(balancer.served.some((s) => s.path.startsWith('/dashboard/sign-in') && s.node === 0 && s.status === 303), 'signed in on node A');

    balancer.target = 1;
    await page.goto(`${balancer.url}/dashboard/keys`);
    assert.equal(balancer.served.at(-1)?.node, 1);
    assert.equal(balancer.served.at(-1)?.status, 200, 'node B serves the page to the session node A made');
    await page.getByLabel('Label').fill('made on B');
    await page.getByLabel(/Sandbox/).check();
    // POST on B; the redirect's page (with the key, once) from A.
    balancer.plan = [1, 0];
    await page.getByRole('button', { name: 'Create key' }).click();
    const key = await page.getByLabel('New API key').inputValue();
    assert.match(key, /^ps_test\./);
    const served = balancer.served.slice(-2);
    assert.deepEqual(served.map((s) => [s.path, s.node]), [['/dashboard/keys', 1], ['/dashboard/keys', 0]]);

    balancer.target = 1;
    await page.reload();
    assert.ok(!(await page.content()).includes(key), 'shown once, whichever node serves the reload');
  });

  test('a batch started on one node is followed to its end on the other', async () => {
    const { page } = browser;
    await store.lists.importList({ accountId: owner.accountId, name: 'two-node list', now: new Date(), entries: [Array.from({ length: 200 }, (_, i) => `user${i}@example.com`)] });
    balancer.target = 0;
    await page.goto(`${balancer.url}/dashboard/batches`);
    await chooseOption(page.getByLabel('Run with key'), /Sandbox key/);
    await page.getByRole('button', { name: 'See the cost', exact: true }).click();
    await page.getByRole('button', { name: /Start batch/ }).click();
    await page.waitForURL(/\/dashboard\/batches\/[0-9a-f-]{36}$/);
    balancer.target = 1;
    await page.reload();
    await page.getByText('100 % — 200 of 200 addresses final').waitFor({ timeout: 60_000 });
    assert.match(await page.getByRole('table', { name: 'Addresses by decision' }).innerText(), /Send\s+200/);
  });

  test('signing out everywhere on one node ends the session on both', async () => {
    const { page } = browser;
    balancer.target = 1;
    await page.goto(`${balancer.url}/dashboard`);
    await page.getByRole('button', { name: 'Sign out everywhere' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    balancer.target = 0;
    const response = await page.goto(`${balancer.url}/dashboard/keys`);
    assert.match(page.url(), /\/dashboard\/sign-in/);
    assert.equal(response?.status(), 200);
    assert.deepEqual(browser.problems, []);
  });
});
