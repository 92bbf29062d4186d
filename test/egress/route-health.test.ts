/** Route health per route × provider family, on an injected clock (src/core/egress/route-health.ts). */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { EgressRoute } from '../../src/core/egress/egress-routes.js';
import { RouteHealth } from '../../src/core/egress/route-health.js';

const route = (name: string, providers: string[] = []): EgressRoute => ({ name, source: null, proxy: null, heloName: `probe-${name}.example.com`, providers });
const MINUTE = 60_000;

function tracker(routes: EgressRoute[]) {
  let now = 0;
  const health = new RouteHealth(routes, { now: () => now, firstPauseMs: 10 * MINUTE, maxPauseMs: 60 * MINUTE });
  return { health, advance: (ms: number) => (now += ms), now: () => now };
}

const DOMAINS = Array.from({ length: 40 }, (_, i) => `d${i}.example`);
/** The route each of the domains gets. */
const picks = (health: RouteHealth, family: string, domains: readonly string[] = DOMAINS): string[] =>
  domains.map((domain) => {
    const pick = health.pick(family, domain);
    return pick.kind === 'route' ? pick.route.name : 'paused';
  });
const used = (names: string[]): string[] => [...new Set(names)].sort();

describe('route health', () => {
  test('a domain keeps its route (greylisting remembers the client address); domains spread over the routes', () => {
    const { health } = tracker([route('a'), route('b')]);
    const first = picks(health, 'microsoft');
    assert.deepEqual(picks(health, 'microsoft'), first, 'the same route for the same domain, every time');
    const shareA = first.filter((r) => r === 'a').length / first.length;
    assert.ok(shareA > 0.2 && shareA < 0.8, `domains spread over both routes (${shareA})`);
  });

  test('a block pauses the route for that family only; its work moves to the healthy route', () => {
    const { health } = tracker([route('a'), route('b')]);
    health.blocked('b', 'microsoft', 'microsoft-banned-ip');
    assert.deepEqual(used(picks(health, 'microsoft')), ['a']);
    assert.deepEqual(used(picks(health, 'google')), ['a', 'b'], 'google still uses b');
    assert.deepEqual(health.paused().map((p) => [p.route, p.family, p.strikes]), [['b', 'microsoft', 1]]);
  });

  test('replies already on their way that come back blocked make one pause, not a longer one', () => {
    const { health } = tracker([route('a'), route('b')]);
    health.blocked('a', 'yahoo', 'dnsbl');
    assert.deepEqual([health.blocked('a', 'yahoo', 'dnsbl').strikes, health.blocked('a', 'yahoo', 'dnsbl').until], [1, 10 * MINUTE]);
    assert.deepEqual(health.blocks(), [{ route: 'a', family: 'yahoo', count: 3 }]);
  });

  test('the pause ends, and blocks in a row double it up to the longest', () => {
    const { health, advance } = tracker([route('a'), route('b')]);
    assert.equal(health.blocked('a', 'yahoo', 'dnsbl').until, 10 * MINUTE);
    advance(10 * MINUTE);
    assert.equal(health.isPaused('a', 'yahoo'), false);
    assert.equal(health.blocked('a', 'yahoo', 'dnsbl').until, 10 * MINUTE + 20 * MINUTE, 'second strike: 20 minutes');
    advance(20 * MINUTE);
    assert.equal(health.blocked('a', 'yahoo', 'dnsbl').strikes, 3);
    advance(40 * MINUTE);
    const fourth = health.blocked('a', 'yahoo', 'dnsbl');
    assert.equal(fourth.until - 70 * MINUTE, 60 * MINUTE, 'capped at maxPauseMs');
  });

  test('an ordinary answer after the pause forgets the strikes', () => {
    const { health, advance } = tracker([route('a')]);
    health.blocked('a', 'google', 'ip-reputation');
    health.worked('a', 'google'); // still paused: a reply cannot have come through it; nothing forgotten
    advance(10 * MINUTE);
    health.worked('a', 'google');
    assert.equal(health.blocked('a', 'google', 'ip-reputation').strikes, 1);
  });

  test('when every route of a family is paused, pick says when the first comes back', () => {
    const { health, advance } = tracker([route('a'), route('b')]);
    health.blocked('a', 'microsoft', 'dnsbl');
    advance(5 * MINUTE);
    health.blocked('b', 'microsoft', 'dnsbl');
    assert.deepEqual(health.pick('microsoft', 'd1.example'), { kind: 'all_paused', retryAt: 10 * MINUTE });
    advance(5 * MINUTE);
    assert.deepEqual(used(picks(health, 'microsoft')), ['a']);
  });

  test('a family pinned to routes uses only them; other families use the unpinned routes', () => {
    const { health } = tracker([route('a'), route('b', ['microsoft']), route('c', ['microsoft'])]);
    assert.deepEqual(used(picks(health, 'microsoft')), ['b', 'c']);
    assert.deepEqual(used(picks(health, 'google')), ['a']);
    health.blocked('b', 'microsoft', 'dnsbl');
    health.blocked('c', 'microsoft', 'dnsbl');
    assert.equal(health.pick('microsoft', 'd1.example').kind, 'all_paused', 'a pinned family does not spill onto other routes');
    assert.deepEqual(health.blocks(), [
      { route: 'b', family: 'microsoft', count: 1 },
      { route: 'c', family: 'microsoft', count: 1 },
    ]);
  });
});
