/**
 * One engine pass over the benchmark-1 world, profiled:
 *   node --import tsx bench/profile-engine.ts [OUT.cpuprofile]
 * A warm-up pass, a timed pass, then a pass under the V8 profiler (node:inspector, this process
 * only: the world runs in its own). Prints a timing breakdown (when results arrive, when the
 * world's sessions open and end) and the profile summed by concern (bench/profile-summary.ts).
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { summarize } from './profile-summary.js';
import { loadConfig } from '../src/config.js';
import { createEngine } from '../src/core/index.js';
import { idealProbe } from './ideal-prober.js';
import { ownCpuMs } from './stats.js';
import { BENCH_WORLD, benchAddresses } from './world-options.js';
import { startWorldChild } from './world-child.js';

const bench = benchAddresses();
const world = await startWorldChild(BENCH_WORLD);
try {
  // Warm-up pass (JIT), then the measured one.
  for (const label of ['warm-up', 'timed', 'profiled']) {
    await world.reset();
    const engine = createEngine(loadConfig(world.env));
    const arrivals: number[] = [];
    const profiling = label === 'profiled';
    const session = new Session();
    if (profiling) {
      session.connect();
      await session.post('Profiler.enable');
      // One pass is ~0.3 s: sample every 200 µs (default 1 ms) so the summary has enough samples.
      await session.post('Profiler.setSamplingInterval', { interval: 200 });
      await session.post('Profiler.start');
    }
    const cpu0 = ownCpuMs();
    const epoch0 = Date.now();
    const t0 = performance.now();
    await engine.verifyMany(bench.addresses, () => void arrivals.push(performance.now() - t0));
    const ms = performance.now() - t0;
    const cpu = ownCpuMs() - cpu0;
    if (profiling) {
      const { profile } = await session.post('Profiler.stop');
      const out = process.argv[2] ?? '/tmp/presend-engine.cpuprofile';
      writeFileSync(out, JSON.stringify(profile));
      session.disconnect();
      process.stdout.write(`profile of the profiled pass (slower than the timed one: the profiler costs CPU): ${out}\n${summarize(out, 20)}\n`);
    }
    await engine.close();
    const at = (share: number): number => Math.round(arrivals[Math.min(arrivals.length - 1, Math.floor(arrivals.length * share))] ?? 0);
    process.stdout.write(
      `${label}: ${Math.round(ms)} ms, CPU ${Math.round(cpu)} ms; results at 1 %: ${at(0.01)} ms, 10 %: ${at(0.1)}, 50 %: ${at(0.5)}, 90 %: ${at(0.9)}, 100 %: ${at(1)}\n`,
    );
    const sessions = await world.timeline();
    const starts = sessions.map((s) => s.startedAt - epoch0).sort((a, b) => a - b);
    const ends = sessions.map((s) => (s.endedAt ?? Number.NaN) - epoch0).sort((a, b) => a - b);
    const q = (list: number[], share: number): number => list[Math.min(list.length - 1, Math.floor(list.length * share))] ?? Number.NaN;
    process.stdout.write(
      `  ${sessions.length} sessions opened at (ms from start) first ${q(starts, 0)}, median ${q(starts, 0.5)}, last ${q(starts, 1)}; ended first ${q(ends, 0)}, median ${q(ends, 0.5)}, last ${q(ends, 1)}\n`,
    );
  }
  await world.reset();
  process.stdout.write(`ideal prober: ${Math.round(await idealProbe(bench.addresses, world.dns, world.smtpPort, 2))} ms\n`);
} finally {
  await world.close();
}
