/**
 * The egress pool's pauses kept by the store (issue 22): on SQLite in the process's memory, on
 * PostgreSQL in a table that every worker reads, so a route paused for a provider by worker A is
 * paused for worker B, and a greylisted domain's recheck picks the same route on either worker.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { EgressRoute } from '../../src/core/egress/egress-routes.js';
import { RouteHealth } from '../../src/core/egress/route-health.js';
import { openBackend } from '../../src/store/open-backend.js';
import { describeOnEveryBackend, openStore } from '../backends.js';

const route = (name: string): EgressRoute => ({ name, source: null, proxy: null, heloName: `probe-${name}.example.com`, providers: [] });
const ROUTES = [route('a'), route('b'), route('c')];
const DOMAINS = Array.from({ length: 30 }, (_, i) => `d${i}.example`);
const MINUTE = 60_000;

async function picks(health: RouteHealth, family: string): Promise<string[]> {
  return Promise.all(DOMAINS.map(async (d) => ((p) => (p.kind === 'route' ? p.route.name : 'paused'))(await health.pick(family, d))));
}

describeOnEveryBackend('egress route pauses kept by the store', (backend) => {
  test('a block is kept with its strikes, read back, and forgotten once an ordinary answer follows its end', async () => {
    const store = await openStore(backend);
    try {
      let now = 1_000_000;
      const health = new RouteHealth(ROUTES, { now: () => now, firstPauseMs: 10 * MINUTE, pauses: store.backend.engineState.routePauses });
      const pause = await health.blocked('b', 'microsoft', 'microsoft-banned-ip');
      assert.deepEqual(await store.backend.engineState.routePauses.list(), [pause]);
      assert.deepEqual(pause, { route: 'b', family: 'microsoft', until: now + 10 * MINUTE, strikes: 1, reason: 'microsoft-banned-ip' });
      now += 10 * MINUTE;
      assert.equal((await health.blocked('b', 'microsoft', 'dnsbl')).strikes, 2, 'a block after the pause: the second strike');
      now += 20 * MINUTE;
      await health.worked('b', 'microsoft');
      assert.deepEqual(await store.backend.engineState.routePauses.list(), [], 'an ordinary answer after the pause forgets it');
    } finally {
      await store.close();
    }
  });

  test('two workers on one database: a route paused by one is paused for the other, and a domain keeps one route on both', { skip: backend === 'SQLite' ? 'a SQLite store is probed by one process' : false }, async () => {
    const store = await openStore(backend);
    const other = await openBackend(store.url);
    try {
      let now = 1_000_000;
      const options = { now: () => now, firstPauseMs: 10 * MINUTE };
      const one = new RouteHealth(ROUTES, { ...options, pauses: store.backend.engineState.routePauses });
      const two = new RouteHealth(ROUTES, { ...options, pauses: other.engineState.routePauses });
      const before = await picks(two, 'microsoft');
      assert.deepEqual(await picks(one, 'microsoft'), before, 'both workers pick the same route for each domain');

      await one.blocked('c', 'microsoft', 'microsoft-banned-ip');
      now += 1000; // worker two reads the pauses again after its refresh period
      const during = await picks(two, 'microsoft');
      assert.ok(!during.includes('c'), 'worker two no longer sends Microsoft work by c');
      assert.deepEqual(await picks(one, 'microsoft'), during, 'and both still agree');
      // Greylisting affinity: a domain greylisted through a or b is rechecked through it, on either worker.
      DOMAINS.forEach((domain, i) => {
        if (before[i] !== 'c') assert.equal(during[i], before[i], `${domain} kept its route`);
      });
      assert.deepEqual(await picks(two, 'google'), await picks(one, 'google'));
      assert.ok((await picks(two, 'google')).includes('c'), 'c still serves Google');

      // Both workers meet the block at once: one pause, one strike.
      const [x, y] = await Promise.all([one.blocked('a', 'yahoo', 'dnsbl'), two.blocked('a', 'yahoo', 'dnsbl')]);
      assert.deepEqual([x.strikes, y.strikes, x.until], [1, 1, y.until]);
    } finally {
      await other.close();
      await store.close();
    }
  });
});
