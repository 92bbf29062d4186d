/**
 * Engine A/B on benchmark 1's world: `node --import tsx bench/ab-engine.ts OTHER_CHECKOUT [ROUNDS]`
 * runs this tree's engine and the one in OTHER_CHECKOUT (e.g. `git archive <commit> | tar -x -C
 * DIR` with node_modules linked) in alternating rounds against one mail-world process, and
 * prints each round, the medians and the ratio — before/after figures from the same run, as the
 * machine's load drifts.
 */
import { pathToFileURL } from 'node:url';
import { join, resolve } from 'node:path';
import { loadConfig } from '../src/config.js';
import { createEngine } from '../src/core/index.js';
import type { Engine } from '../src/core/ports.js';
import { fmt, median } from './stats.js';
import { BENCH_WORLD, benchAddresses } from './world-options.js';
import { startWorldChild } from './world-child.js';

type CreateEngine = (config: ReturnType<typeof loadConfig>) => Engine;

async function timed(create: CreateEngine, config: ReturnType<typeof loadConfig>, addresses: readonly string[], truth: Record<string, string>): Promise<{ ms: number; wrong: number }> {
  const engine = create(config);
  let wrong = 0;
  const started = performance.now();
  await engine.verifyMany(addresses, (r) => {
    if (truth[r.email] !== r.envelope.verdict) wrong++;
  });
  const ms = performance.now() - started;
  await engine.close();
  return { ms, wrong };
}

const other = process.argv[2];
if (!other) {
  process.stderr.write('usage: node --import tsx bench/ab-engine.ts OTHER_CHECKOUT [ROUNDS]\n');
  process.exit(2);
}
const rounds = Number(process.argv[3] ?? 7);
const theirs = (await import(pathToFileURL(join(resolve(other), 'src/core/index.ts')).href)) as { createEngine: CreateEngine };
const bench = benchAddresses();
const world = await startWorldChild(BENCH_WORLD);
const config = loadConfig({ ...world.env });
const ours: number[] = [];
const base: number[] = [];
try {
  for (let round = 0; round <= rounds; round++) {
    await world.reset();
    const a = await timed(createEngine, config, bench.addresses, bench.truth);
    await world.reset();
    const b = await timed(theirs.createEngine, config, bench.addresses, bench.truth);
    // Round 0 warms both up and is not counted.
    if (round > 0) {
      ours.push(a.ms);
      base.push(b.ms);
    }
    process.stdout.write(`round ${round}${round === 0 ? ' (warm-up)' : ''}: this tree ${fmt(a.ms)} ms (${a.wrong} wrong), other ${fmt(b.ms)} ms (${b.wrong} wrong)\n`);
  }
} finally {
  await world.close();
}
process.stdout.write(`medians: this tree ${fmt(median(ours))} ms, other ${fmt(median(base))} ms, ratio ${fmt(median(ours) / median(base), 2)}\n`);
