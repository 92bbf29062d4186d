/**
 * The politeness budgets kept by the store (issue 22): on SQLite in the process's memory, on
 * PostgreSQL in a table, so two workers (two backends, two gates) spend from one budget: what
 * the host is let through, summed over both, stays within it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PoliteGate } from '../../src/core/egress/polite-gate.js';
import type { PolitenessBudget } from '../../src/core/ports.js';
import { openBackend } from '../../src/store/open-backend.js';
import { describeOnEveryBackend, openStore } from '../backends.js';
import { until } from '../until.js';
import { manualWaitClock } from './manual-wait-clock.js';

const PER_MINUTE = 12;
const INTERVAL_MS = 60_000 / PER_MINUTE;

describeOnEveryBackend('politeness budgets kept by the store', (backend) => {
  test('one token, then the next after one interval; a host and a kind of their own', async () => {
    const store = await openStore(backend);
    try {
      const budget = store.backend.engineState.politeness;
      const take = (nowMs: number, host = 'mx.a.test') => budget.take({ route: 'a', host, kind: 'rcpt', perMinute: PER_MINUTE, nowMs });
      assert.deepEqual(await take(1_000_000), { granted: true, retryAfterMs: 0 });
      assert.deepEqual(await take(1_000_001), { granted: false, retryAfterMs: INTERVAL_MS - 1 });
      assert.equal((await take(1_000_001, 'mx.b.test')).granted, true);
      assert.equal((await take(1_000_000 + INTERVAL_MS)).granted, true);
    } finally {
      await store.close();
    }
  });

  test('two workers on one database share one budget per route and host: the sum stays within it', { skip: backend === 'SQLite' ? 'a SQLite store is probed by one process' : false }, async () => {
    const store = await openStore(backend);
    const other = await openBackend(store.url);
    const clock = manualWaitClock();
    const gateOn = (budget: PolitenessBudget) => new PoliteGate({ budget, sessionsPerMinute: 0, rcptsPerMinute: PER_MINUTE, boundMs: 3_600_000, clock });
    const gates = [gateOn(store.backend.engineState.politeness), gateOn(other.engineState.politeness)];
    try {
      let granted = 0;
      const left = [8, 8];
      const waiting = gates.flatMap((gate, g) =>
        Array.from({ length: 8 }, () =>
          gate.admit('a', 'mx.shared.test', 'rcpt').then((a) => {
            assert.equal(a, 'go');
            granted++;
            left[g] = (left[g] ?? 0) - 1;
          }),
        ),
      );
      const waitingGates = () => left.filter((n) => n > 0).length;
      const start = clock.now();
      while (granted < waiting.length) {
        // Both gates asleep (or one done): every token due by now has been handed out.
        await until('both workers wait for the budget', () => granted === waiting.length || clock.sleepers() >= waitingGates());
        const allowed = 1 + Math.floor((clock.now() - start) / INTERVAL_MS);
        assert.ok(granted <= allowed, `${granted} let through by two workers after ${clock.now() - start} ms of a budget of ${PER_MINUTE} a minute`);
        if (clock.now() - start < 60_000) assert.ok(granted <= PER_MINUTE);
        clock.advance(INTERVAL_MS);
      }
      await Promise.all(waiting);
      // 16 recipients at one token per interval: the last went about 15 intervals in, not 7 (as two budgets would allow).
      assert.ok(clock.now() - start >= 15 * INTERVAL_MS, `done after ${clock.now() - start} ms`);
    } finally {
      for (const gate of gates) gate.close();
      await other.close();
      await store.close();
    }
  });
});
