/**
 * Key guessing by timing (a timing-statistics test, run by `npm run test:load`, one file at a
 * time): a wrong key that shares a real key's prefix must get the same 401 body as a random key,
 * and no faster or slower answer. Paired measurements, median of the differences; on SQLite and
 * on PostgreSQL.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness } from '../api/harness.js';
import type { Harness } from '../api/harness.js';
import { describeOnEveryBackend } from '../backends.js';
import { generateApiKey } from '../../src/service/keys/key-format.js';

const BASE62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** The real key with its last character changed: same prefix, same shape, wrong key. */
function nearMiss(key: string, i: number): string {
  const last = key.at(-1) ?? 'A';
  const swap = BASE62[(BASE62.indexOf(last) + 1 + (i % 61)) % 62] ?? 'A';
  return key.slice(0, -1) + swap;
}

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
}

describeOnEveryBackend('key guessing by timing', (backend) => {
  let h: Harness;
  let a: { accountId: string; live: string; test: string };
  before(async () => {
    h = await startHarness({ backend });
    a = await h.newAccount(100);
  });
  after(async () => h?.close());

  test('wrong keys sharing a real key’s prefix get the same 401 body, and no faster or slower answer, than random keys', async () => {
    const path = '/v1/requests/00000000-0000-4000-8000-000000000000';
    const messages = { near: new Set<string>(), random: new Set<string>() };
    const ask = async (kind: 'near' | 'random', key: string): Promise<number> => {
      const t0 = process.hrtime.bigint();
      const r = await h.call('GET', path, { key });
      const ms = Number(process.hrtime.bigint() - t0) / 1e6;
      assert.equal(r.status, 401);
      assert.deepEqual(Object.keys(r.body.error).sort(), ['code', 'message', 'requestId']);
      assert.equal(r.body.error.code, 'unauthorized');
      messages[kind].add(r.body.error.message);
      return ms;
    };
    for (let i = 0; i < 30; i += 1) await ask(i % 2 ? 'near' : 'random', generateApiKey('live').key); // warm-up
    // Pairs asked back to back, in alternating order, so a burst of load on the machine hits
    // both kinds alike; the statistic is the median of the paired differences.
    const near: number[] = [];
    const random: number[] = [];
    const differences: number[] = [];
    for (let i = 0; i < 300; i += 1) {
      let n: number;
      let r: number;
      if (i % 2) {
        n = await ask('near', nearMiss(a.live, i));
        r = await ask('random', generateApiKey('live').key);
      } else {
        r = await ask('random', generateApiKey('live').key);
        n = await ask('near', nearMiss(a.live, i));
      }
      near.push(n);
      random.push(r);
      differences.push(n - r);
    }
    assert.deepEqual([...messages.near], [...messages.random], 'the message must not tell a near miss from a random key');
    const sorted = (xs: number[]) => [...xs].sort((x, y) => x - y);
    const [medianNear, medianRandom, medianDiff] = [quantile(sorted(near), 0.5), quantile(sorted(random), 0.5), quantile(sorted(differences), 0.5)];
    // The service compares SHA-256 hashes in an index, so the prefix cannot matter. Generous
    // bounds, far above noise: a byte-by-byte comparison would not show at all over HTTP, but
    // a lookup that did more work for a near miss (a prefix scan, a second query) would.
    const typical = Math.min(medianNear, medianRandom);
    assert.ok(Math.abs(medianDiff) <= 0.3 * typical + 0.5, `median paired difference ${medianDiff.toFixed(3)} ms (medians ${medianNear.toFixed(3)} / ${medianRandom.toFixed(3)} ms)`);
    assert.ok(Math.abs(medianNear - medianRandom) <= 0.5 * typical + 1, `medians ${medianNear.toFixed(3)} vs ${medianRandom.toFixed(3)} ms`);
  });
});
