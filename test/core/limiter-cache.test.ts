import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { createMemorySessionLimiter } from '../../src/core/limiter.js';
import { cachedFact, createMemoryFactsCache, SingleFlight } from '../../src/core/facts-cache.js';
import type { Clock } from '../../src/core/ports.js';

describe('in-memory session limiter', () => {
  test('never grants more slots per host than the limit, and serves waiters in order', async () => {
    const limiter = createMemorySessionLimiter(2);
    const a = await limiter.acquire('mx.a');
    const b = await limiter.acquire('mx.a');
    const other = await limiter.acquire('mx.b');
    const granted: string[] = [];
    const c = limiter.acquire('mx.a').then((release) => (granted.push('c'), release));
    const d = limiter.acquire('mx.a').then((release) => (granted.push('d'), release));
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(granted, [], 'both waiting while two sessions are open');
    await a();
    await (await c)();
    await b();
    await (await d)();
    await other();
    assert.deepEqual(granted, ['c', 'd']);
  });

  test('a waiter can give up with an abort signal', async () => {
    const limiter = createMemorySessionLimiter(1);
    const held = await limiter.acquire('mx.a');
    const controller = new AbortController();
    const waiting = limiter.acquire('mx.a', controller.signal);
    controller.abort();
    await assert.rejects(waiting);
    await held();
    const again = await limiter.acquire('mx.a');
    await again();
  });
});

describe('facts cache and single flight', () => {
  test('entries expire after their TTL on the injected clock', async () => {
    let now = 1_000_000;
    const clock: Clock = { now: () => new Date(now) };
    const cache = createMemoryFactsCache(clock);
    await cache.set('mx:a.test', ['mx1'], 1000);
    assert.deepEqual(await cache.get('mx:a.test'), ['mx1']);
    now += 1001;
    assert.equal(await cache.get('mx:a.test'), undefined);
  });

  test('the oldest entry goes when the cache is full', async () => {
    const cache = createMemoryFactsCache({ now: () => new Date(0) }, 2);
    await cache.set('a', 1, 10_000);
    await cache.set('b', 2, 10_000);
    await cache.set('c', 3, 10_000);
    assert.equal(await cache.get('a'), undefined);
    assert.equal(await cache.get('c'), 3);
  });

  test('concurrent lookups of one key share one piece of work; a TTL of 0 is not cached', async () => {
    const cache = createMemoryFactsCache({ now: () => new Date(0) });
    const flights = new SingleFlight();
    let runs = 0;
    const work = async (): Promise<string | null> => {
      runs++;
      await new Promise((resolve) => setTimeout(resolve, 10)); // the work's length, kept: the lookups must overlap it
      return null;
    };
    const answers = await Promise.all(Array.from({ length: 5 }, () => cachedFact(cache, flights, 'catchall:a.test', () => 0, work)));
    assert.deepEqual(answers, [null, null, null, null, null]);
    assert.equal(runs, 1);
    await cachedFact(cache, flights, 'catchall:a.test', () => 0, work);
    assert.equal(runs, 2, 'an unknown answer (TTL 0) is asked again next time');
  });
});
