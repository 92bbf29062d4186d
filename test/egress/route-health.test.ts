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

const picks = (health: RouteHealth, family: string, n: number): string[] =>
  Array.from({ length: n }, () => {
    const pick = health.pick(family);
    return pick.kind === 'route' ? pick.route.name : 'paused';
  });

describe('route health', () => {
  test('work for a family takes the routes in turn', () => {
    const { health } = tracker([route('a'), route('b')]);
    assert.deepEqual(picks(health, 'microsoft', 4), ['a', 'b', 'a', 'b']);
  });

  test('a block pauses the route for that family only; its work moves to the healthy route', () => {
    const { health } = tracker([route('a'), route('b')]);
    health.blocked('b', 'microsoft', 'microsoft-banned-ip');
    assert.deepEqual(picks(health, 'microsoft', 3), ['a', 'a', 'a']);
    assert.deepEqual(picks(health, 'google', 2), ['a', 'b'], 'google still uses b');
    assert.deepEqual(health.paused().map((p) => [p.route, p.family, p.strikes]), [['b', 'microsoft', 1]]);
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
    assert.deepEqual(health.pick('microsoft'), { kind: 'all_paused', retryAt: 10 * MINUTE });
    advance(5 * MINUTE);
    assert.deepEqual(picks(health, 'microsoft', 2), ['a', 'a']);
  });

  test('a family pinned to routes uses only them; other families use the unpinned routes', () => {
    const { health } = tracker([route('a'), route('b', ['microsoft']), route('c', ['microsoft'])]);
    assert.deepEqual(picks(health, 'microsoft', 4), ['b', 'c', 'b', 'c']);
    assert.deepEqual(picks(health, 'google', 2), ['a', 'a']);
    health.blocked('b', 'microsoft', 'dnsbl');
    health.blocked('c', 'microsoft', 'dnsbl');
    assert.equal(health.pick('microsoft').kind, 'all_paused', 'a pinned family does not spill onto other routes');
  });
});
