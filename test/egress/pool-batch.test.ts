/**
 * A batch through the service over a world where one route is listed by one provider, with two
 * workers on one store (SQLite, and PostgreSQL when PRESEND_TEST_POSTGRES is reachable): it
 * completes with every address right, and route b is paused for that provider only.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { loadConfig } from '../../src/config.js';
import { silentLogger } from '../../src/logger.js';
import { startMailWorld, type MailWorld } from '../../src/mailworld/index.js';
import { BatchRunner, batchRunnerOptions } from '../../src/service/batches/batch-runner.js';
import { closeEngines, type Engines } from '../../src/service/engines/engines.js';
import { loadEngines } from '../../src/service/engines/load-engines.js';
import { describeOnEveryBackend, openDatabase, type TestDatabase } from '../backends.js';
import { openBackend } from '../../src/store/open-backend.js';
import type { Backend } from '../../src/store/backend.js';
import { newIdem, startHarness, waitFinal, type Harness } from '../api/harness.js';
import { B, BARRACUDA_MX, MICROSOFT_DOMAINS, MICROSOFT_MX, OTHER_DOMAINS, ROUTES, addressesAt, poolWorld } from './pool-world.js';

describeOnEveryBackend('a batch over a pool of egress routes, two workers', (backend) => {
  let world: MailWorld;
  let h: Harness;
  let database: TestDatabase;
  /** Each worker's store: on PostgreSQL one of its own, as a second `presend worker` process has; on SQLite one process probes, with one memory of pauses. */
  const workerStores: Backend[] = [];
  const engines: Engines[] = [];
  let second: BatchRunner;
  const keptPauses = () => (workerStores[0] as Backend).engineState.routePauses.list();
  before(async () => {
    world = await startMailWorld(poolWorld());
    database = await openDatabase(backend);
    // Small claims, so both workers take part.
    // A short recheck delay, pauses and host-down time, so a route let in again is used within the test.
    const env = { ...world.env(), PRESEND_DATABASE_URL: database.url, PRESEND_EGRESS: ROUTES, PRESEND_SMTP_TIMEOUT_MS: '5000', PRESEND_WORKER_CONCURRENCY: '12', PRESEND_RECHECK_DELAY_MS: '1500' };
    const config = loadConfig(env);
    const engineConfig = { ...config, egressFirstPauseMs: 300, egressMaxPauseMs: 300, hostDownMs: 200 };
    const first = await openBackend(database.url, { config });
    workerStores.push(first, backend === 'PostgreSQL' ? await openBackend(database.url, { config }) : first);
    for (const store of workerStores) engines.push(loadEngines(engineConfig, store.engineState));
    h = await startHarness({ backend, env, engines: engines[0] as Engines, server: { worker: { pollMs: 50, affinity: 'worker-1' } } });
    second = new BatchRunner({ ...batchRunnerOptions(config, workerStores[1] as Backend, engines[1] as Engines, silentLogger), pollMs: 50, affinity: 'worker-2' });
    second.start();
  });
  after(async () => {
    await second.stop();
    await h.close();
    await closeEngines(engines[1] as Engines);
    for (const store of new Set(workerStores)) await store.close();
    await database.drop();
    await world.close();
  });

  test('every address right, none UNKNOWN because of the listed route, which is paused for that provider only', async () => {
    const a = await h.newAccount(500);
    const emails = [...MICROSOFT_DOMAINS, ...OTHER_DOMAINS].flatMap(addressesAt);
    const created = await h.call('POST', '/v1/requests', { key: a.live, idem: newIdem(), body: { emails } });
    assert.equal(created.status, 202, JSON.stringify(created.body));
    const final = await waitFinal(h, a.live, created.body.request.id, 120_000);
    assert.equal(final.request.state, 'completed');
    const page = await h.call('GET', `/v1/requests/${created.body.request.id}/results?limit=200`, { key: a.live });
    const results = page.body.results as Array<{ email: string; presend: { verdict: string } }>;
    assert.equal(results.length, emails.length, 'nothing lost');
    const wrong = results.filter((r) => r.presend.verdict !== world.expectedVerdict(r.email));
    assert.deepEqual(wrong.map((r) => `${r.email}: ${r.presend.verdict}`), []);
    assert.ok(world.recorder.sessions(MICROSOFT_MX).some((s) => s.client === B), 'route b was tried at the provider that lists it');
    // The pauses are short here (so the next test can see a route let in again): read the blocks that set them.
    const blocks = engines.flatMap((e) => e.live.egressStats?.()?.blocks ?? []);
    assert.ok(blocks.length >= 1, 'a worker that met the block paused the route');
    assert.deepEqual([...new Set(blocks.map((b) => `${b.route}/${b.family}`))], ['b/microsoft']);
    // The pause is kept where both workers read it (a table on PostgreSQL), for that provider only.
    assert.deepEqual((await keptPauses()).map((p) => `${p.route}/${p.family}`), ['b/microsoft']);
  });

  test('addresses whose provider refuses every route wait (rechecked) and get their verdict once a route is let in again', async () => {
    const walled = world.spec.hosts.find((host) => host.name === BARRACUDA_MX);
    assert.ok(walled?.blockClients);
    const a = await h.newAccount(100);
    const emails = addressesAt('walled.test');
    const created = await h.call('POST', '/v1/requests', { key: a.live, idem: newIdem(), body: { emails } });
    assert.equal(created.status, 202, JSON.stringify(created.body));
    const id = created.body.request.id as string;
    // Every route refused: the items wait for a recheck instead of ending UNKNOWN or TRANSIENT.
    const deadline = Date.now() + 60_000;
    for (;;) {
      const view = await h.call('GET', `/v1/requests/${id}`, { key: a.live });
      if (view.body.counters.rechecking >= emails.length) break;
      assert.equal(view.body.request.finalized, false, 'finalized before its items waited for a route');
      assert.ok(Date.now() < deadline, `items never waited: ${JSON.stringify(view.body.counters)}`);
      await new Promise((resolve) => setImmediate(resolve));
      await h.backend.ping(); // one store round trip per turn, not a fixed sleep
    }
    walled.blockClients.length = 0; // the provider lets the prober in again
    const final = await waitFinal(h, a.live, id, 60_000);
    assert.equal(final.request.state, 'completed');
    const page = await h.call('GET', `/v1/requests/${id}/results?limit=200`, { key: a.live });
    const results = page.body.results as Array<{ email: string; presend: { verdict: string } }>;
    assert.deepEqual(results.filter((r) => r.presend.verdict !== world.expectedVerdict(r.email)).map((r) => `${r.email}: ${r.presend.verdict}`), []);
  });
});
