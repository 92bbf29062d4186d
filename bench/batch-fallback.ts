/**
 * `node --import tsx bench/batch-fallback.ts`: wall time of verifyMany for 10,000 addresses that
 * are never probed — one disposable domain, one domain without DNS — median of 7 passes after a
 * warm-up. Measures the batch path's per-address cost outside SMTP (src/core/batch.ts looks a
 * domain's traits up once per domain, not once per address). Not part of `npm run bench`.
 */
import { loadConfig } from '../src/config.js';
import { createEngine } from '../src/core/index.js';
import { startMailWorld } from '../src/mailworld/index.js';
import { median } from './stats.js';

const ADDRESSES = 10_000;
const PASSES = 7;

const world = await startMailWorld({ hosts: [], domains: [], names: [] });
const engine = createEngine(loadConfig(world.env()));
async function pass(addresses: readonly string[]): Promise<number> {
  const started = performance.now();
  let results = 0;
  await engine.verifyMany(addresses, () => {
    results++;
  });
  if (results !== addresses.length) throw new Error(`${results} results for ${addresses.length} addresses`);
  return performance.now() - started;
}
try {
  for (const domain of ['mailinator.com', 'no-dns.test']) {
    const addresses = Array.from({ length: ADDRESSES }, (_, i) => `user${i}@${domain}`);
    await pass(addresses);
    const times: number[] = [];
    for (let i = 0; i < PASSES; i++) times.push(await pass(addresses));
    process.stdout.write(`${domain}: ${ADDRESSES} addresses, median ${median(times).toFixed(0)} ms (${times.map((t) => t.toFixed(0)).join(' ')})\n`);
  }
} finally {
  await engine.close();
  await world.close();
}
