/**
 * The politeness gate and its budget with a clock the test moves: tokens evenly spaced, waiters
 * served first come first served, a recipient that would wait past the bound not asked, and a
 * host's RCPT line holding while a session of that host waits for its token.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createMemoryPolitenessBudget } from '../../src/core/egress/memory-politeness-budget.js';
import { PoliteGate, type Admission } from '../../src/core/egress/polite-gate.js';
import { until } from '../until.js';
import { manualWaitClock } from './manual-wait-clock.js';

const MINUTE = 60_000;

test('the budget gives one token, then the next after one interval, per route, host and kind', async () => {
  const budget = createMemoryPolitenessBudget();
  const take = (nowMs: number, host = 'mx.a.test', kind: 'rcpt' | 'session' = 'rcpt') => budget.take({ route: 'r', host, kind, perMinute: 6, nowMs });
  assert.deepEqual(await take(0), { granted: true, retryAfterMs: 0 });
  assert.deepEqual(await take(1), { granted: false, retryAfterMs: 9_999 });
  assert.equal((await take(0, 'mx.b.test')).granted, true, 'another host has its own budget');
  assert.equal((await take(0, 'mx.a.test', 'session')).granted, true, 'sessions have their own');
  assert.equal((await take(9_999)).granted, false);
  assert.equal((await take(10_000)).granted, true);
  assert.equal((await take(10_000 + 5 * MINUTE)).granted, true, 'an idle bucket holds one token, not five minutes of them');
  assert.equal((await take(10_000 + 5 * MINUTE)).granted, false);
});

test('waiters are let through one per interval, in order, and each counts one wait', async () => {
  const clock = manualWaitClock();
  const gate = new PoliteGate({ budget: createMemoryPolitenessBudget(), sessionsPerMinute: 0, rcptsPerMinute: 6, boundMs: 10 * MINUTE, clock });
  const order: number[] = [];
  const admissions = [0, 1, 2, 3].map((i) => gate.admit('a', 'mx.test', 'rcpt').then((a) => (order.push(i), a)));
  await until('the first is let through', () => order.length === 1);
  for (let step = 1; step <= 3; step++) {
    await until('the gate sleeps', () => clock.sleepers() === 1);
    clock.advance(9_999);
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(order.length, step, 'not one millisecond early');
    clock.advance(1);
    await until(`waiter ${step} let through`, () => order.length === step + 1);
  }
  assert.deepEqual(await Promise.all(admissions), ['go', 'go', 'go', 'go']);
  assert.deepEqual(order, [0, 1, 2, 3]);
  assert.deepEqual(gate.stats(), { waits: [{ route: 'a', kind: 'rcpt', count: 3 }], tooLong: [] });
  assert.equal(await gate.admit('a', 'mx.test', 'session'), 'go', 'sessions are not limited here');
  gate.close();
});

test('a recipient that would wait past the bound is not asked: at once when the line ahead is too long, else once its wait passes the bound', async () => {
  const clock = manualWaitClock();
  // One token every 10 s, bound 15 s: the first goes; the third in line would wait at least 20 s.
  const gate = new PoliteGate({ budget: createMemoryPolitenessBudget(), sessionsPerMinute: 0, rcptsPerMinute: 6, boundMs: 15_000, clock });
  const first = await gate.admit('a', 'mx.test', 'rcpt');
  const waiting = [gate.admit('a', 'mx.test', 'rcpt'), gate.admit('a', 'mx.test', 'rcpt'), gate.admit('a', 'mx.test', 'rcpt')];
  assert.equal(await waiting[2], 'too_long', 'two ahead at 10 s each already pass the bound: not asked, at once');
  await until('the gate sleeps', () => clock.sleepers() === 1);
  clock.advance(10_000);
  assert.deepEqual([first, await waiting[0]], ['go', 'go']);
  await until('the gate sleeps until the bound of the next', () => clock.sleepers() === 1);
  clock.advance(5_001);
  assert.equal(await waiting[1], 'too_long', 'waited past the bound');
  assert.deepEqual(gate.stats().tooLong, [{ route: 'a', count: 2 }]);
  gate.close();
});

test("a host's recipients wait while a session of that route and host waits for its token, and closing lets every waiter go", async () => {
  const clock = manualWaitClock();
  const gate = new PoliteGate({ budget: createMemoryPolitenessBudget(), sessionsPerMinute: 1, rcptsPerMinute: 600, boundMs: 10 * MINUTE, clock });
  assert.equal(await gate.admit('a', 'mx.test', 'session'), 'go');
  let sessionLetIn = false;
  void gate.admit('a', 'mx.test', 'session').then(() => (sessionLetIn = true));
  const rcpts: Admission[] = [];
  for (let i = 0; i < 3; i++) void gate.admit('a', 'mx.test', 'rcpt').then((a) => rcpts.push(a));
  void gate.admit('a', 'mx.other.test', 'rcpt').then((a) => rcpts.push(a));
  await until('the other host is not held', () => rcpts.length === 1);
  clock.advance(30_000);
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(rcpts.length, 1, 'held while the session waits, though RCPT tokens are there');
  clock.advance(30_000);
  await until('the session, then the recipients one per 100 ms', () => sessionLetIn && rcpts.length === 2);
  clock.advance(100);
  await until('the next recipient', () => rcpts.length === 3);
  gate.close();
  await until('the last is let go', () => rcpts.length === 4);
  assert.deepEqual(rcpts, ['go', 'go', 'go', 'closed']);
  assert.equal(await gate.admit('a', 'mx.test', 'rcpt'), 'closed');
});
