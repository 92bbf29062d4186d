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
import { BatchRunner, batchRunnerOptions } from '../../src/service/batch-runner.js';
import { closeEngines, type Engines } from '../../src/service/engines.js';
import { loadEngines } from '../../src/service/load-engines.js';
import { describeOnEveryBackend } from '../api/backends.js';
import { newIdem, startHarness, waitFinal, type Harness } from '../api/harness.js';
import { B, MICROSOFT_DOMAINS, MICROSOFT_MX, OTHER_DOMAINS, ROUTES, addressesAt, poolWorld } from './pool-world.js';

describeOnEveryBackend('a batch over a pool of egress routes, two workers', (backend) => {
  let world: MailWorld;
  let h: Harness;
  const engines: Engines[] = [];
  let second: BatchRunner;
  before(async () => {
    world = await startMailWorld(poolWorld());
    // Small claims, so both workers take part.
    const env = { ...world.env(), PRESEND_EGRESS: ROUTES, PRESEND_SMTP_TIMEOUT_MS: '5000', PRESEND_WORKER_CONCURRENCY: '12' };
    const engineConfig = loadConfig({ ...env, PRESEND_DATABASE_URL: 'sqlite::memory:' });
    engines.push(loadEngines(engineConfig), loadEngines(engineConfig));
    h = await startHarness({ backend, env, engines: engines[0] as Engines, server: { worker: { pollMs: 50, affinity: 'worker-1' } } });
    second = new BatchRunner({ ...batchRunnerOptions(h.config, h.backend, engines[1] as Engines, silentLogger), pollMs: 50, affinity: 'worker-2' });
    second.start();
  });
  after(async () => {
    await second.stop();
    await h.close();
    await closeEngines(engines[1] as Engines);
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
    const pauses = engines.flatMap((e) => e.live.egressStats?.()?.paused ?? []);
    assert.ok(pauses.length >= 1, 'a worker that met the block paused the route');
    assert.deepEqual([...new Set(pauses.map((p) => `${p.route}/${p.family}`))], ['b/microsoft']);
  });
});
