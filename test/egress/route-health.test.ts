/** Route health per route × provider family, on an injected clock (src/core/egress/route-health.ts). */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { EgressRoute } from '../../src/core/egress/egress-routes.js';
import { RouteHealth } from '../../src/core/egress/route-health.js';
import { createMemoryRoutePauses } from '../../src/core/egress/memory-route-pauses.js';
import type { RoutePauses } from '../../src/core/ports.js';

const route = (name: string, providers: string[] = []): EgressRoute => ({ name, source: null, proxy: null, heloName: `probe-${name}.example.com`, providers });
const MINUTE = 60_000;

function tracker(routes: EgressRoute[], pauses?: RoutePauses) {
  let now = 0;
  const health = new RouteHealth(routes, { now: () => now, firstPauseMs: 10 * MINUTE, maxPauseMs: 60 * MINUTE, ...(pauses ? { pauses } : {}) });
  return { health, advance: (ms: number) => (now += ms), now: () => now };
}

const DOMAINS = Array.from({ length: 40 }, (_, i) => `d${i}.example`);
/** The route each of the domains gets. */
const picks = (health: RouteHealth, family: string, domains: readonly string[] = DOMAINS): Promise<string[]> =>
  Promise.all(
    domains.map(async (domain) => {
      const pick = await await health.pick(family, domain);
      return pick.kind === 'route' ? pick.route.name : 'paused';
    }),
  );
const used = (names: string[]): string[] => [...new Set(names)].sort();

describe('route health', () => {
  test('a domain keeps its route (greylisting remembers the client address); domains spread over the routes', async () => {
    const { health } = tracker([route('a'), route('b')]);
    const first = await picks(health, 'microsoft');
    assert.deepEqual(await picks(health, 'microsoft'), first, 'the same route for the same domain, every time');
    const shareA = first.filter((r) => r === 'a').length / first.length;
    assert.ok(shareA > 0.2 && shareA < 0.8, `domains spread over both routes (${shareA})`);
  });

  test('a block pauses the route for that family only; its work moves to the healthy route', async () => {
    const { health } = tracker([route('a'), route('b')]);
    await health.blocked('b', 'microsoft', 'microsoft-banned-ip');
    assert.deepEqual(used(await picks(health, 'microsoft')), ['a']);
    assert.deepEqual(used(await picks(health, 'google')), ['a', 'b'], 'google still uses b');
    assert.deepEqual(health.paused().map((p) => [p.route, p.family, p.strikes]), [['b', 'microsoft', 1]]);
  });

  test('replies already on their way that come back blocked make one pause, not a longer one', async () => {
    const { health } = tracker([route('a'), route('b')]);
    await health.blocked('a', 'yahoo', 'dnsbl');
    assert.deepEqual([(await health.blocked('a', 'yahoo', 'dnsbl')).strikes, (await health.blocked('a', 'yahoo', 'dnsbl')).until], [1, 10 * MINUTE]);
    assert.deepEqual(health.blocks(), [{ route: 'a', family: 'yahoo', count: 3 }]);
  });

  test('the pause ends, and blocks in a row double it up to the longest', async () => {
    const { health, advance } = tracker([route('a'), route('b')]);
    assert.equal((await health.blocked('a', 'yahoo', 'dnsbl')).until, 10 * MINUTE);
    advance(10 * MINUTE);
    assert.equal(health.isPaused('a', 'yahoo'), false);
    assert.equal((await health.blocked('a', 'yahoo', 'dnsbl')).until, 10 * MINUTE + 20 * MINUTE, 'second strike: 20 minutes');
    advance(20 * MINUTE);
    assert.equal((await health.blocked('a', 'yahoo', 'dnsbl')).strikes, 3);
    advance(40 * MINUTE);
    const fourth = await health.blocked('a', 'yahoo', 'dnsbl');
    assert.equal(fourth.until - 70 * MINUTE, 60 * MINUTE, 'capped at maxPauseMs');
  });

  test('an ordinary answer after the pause forgets the strikes', async () => {
    const { health, advance } = tracker([route('a')]);
    await health.blocked('a', 'google', 'ip-reputation');
    await health.worked('a', 'google'); // still paused: a reply cannot have come through it; nothing forgotten
    advance(10 * MINUTE);
    await health.worked('a', 'google');
    assert.equal((await health.blocked('a', 'google', 'ip-reputation')).strikes, 1);
  });

  test('when every route of a family is paused, pick says when the first comes back', async () => {
    const { health, advance } = tracker([route('a'), route('b')]);
    await health.blocked('a', 'microsoft', 'dnsbl');
    advance(5 * MINUTE);
    await health.blocked('b', 'microsoft', 'dnsbl');
    assert.deepEqual(await health.pick('microsoft', 'd1.example'), { kind: 'all_paused', retryAt: 10 * MINUTE });
    advance(5 * MINUTE);
    assert.deepEqual(used(await picks(health, 'microsoft')), ['a']);
  });

  test('a family pinned to routes uses only them; other families use the unpinned routes', async () => {
    const { health } = tracker([route('a'), route('b', ['microsoft']), route('c', ['microsoft'])]);
    assert.deepEqual(used(await picks(health, 'microsoft')), ['b', 'c']);
    assert.deepEqual(used(await picks(health, 'google')), ['a']);
    await health.blocked('b', 'microsoft', 'dnsbl');
    await health.blocked('c', 'microsoft', 'dnsbl');
    assert.equal((await health.pick('microsoft', 'd1.example')).kind, 'all_paused', 'a pinned family does not spill onto other routes');
    assert.deepEqual(health.blocks(), [
      { route: 'b', family: 'microsoft', count: 1 },
      { route: 'c', family: 'microsoft', count: 1 },
    ]);
  });

  test('a domain keeps its route while another route is paused or let in again (a greylisting recheck meets the same address)', async () => {
    const { health, advance } = tracker([route('a'), route('b'), route('c')]);
    const before = await picks(health, 'google');
    await health.blocked('c', 'google', 'dnsbl');
    const during = await picks(health, 'google');
    DOMAINS.forEach((domain, i) => {
      if (before[i] !== 'c') assert.equal(during[i], before[i], `${domain} moved off a healthy route`);
    });
    advance(10 * MINUTE);
    assert.deepEqual(await picks(health, 'google'), before, 'c let in again takes back its own domains only');
  });

  test('two workers on one store of pauses: a route paused by one is paused for the other, and both pick alike', async () => {
    const pauses = createMemoryRoutePauses();
    const one = tracker([route('a'), route('b')], pauses);
    const two = tracker([route('a'), route('b')], pauses);
    assert.deepEqual(await picks(one.health, 'microsoft'), await picks(two.health, 'microsoft'), 'the same route for a domain on both');
    await one.health.blocked('b', 'microsoft', 'microsoft-banned-ip');
    two.advance(1000); // the other worker reads the kept pauses again once its last read is a refresh period old
    assert.deepEqual(used(await picks(two.health, 'microsoft')), ['a'], 'the other worker reads the pause');
    assert.equal((await two.health.blocked('b', 'microsoft', 'microsoft-banned-ip')).strikes, 1, 'a block already paused is one block, on any worker');
  });
});
