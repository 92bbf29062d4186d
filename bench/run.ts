/**
 * `npm run bench [-- engine|compare|api|batch|scale|postfix|export|lists|realmta ...]`: runs the benchmarks (all nine by
 * default, in that order) on this machine and writes their figures into BENCHMARKS.md.
 * Benchmarks, not tests: nothing here asserts a time; targets are reported as met or missed.
 */
import { fileURLToPath } from 'node:url';
import { engineBench } from './engine.js';
import { PREAMBLE, writeReport } from './report.js';
import type { Section } from './section.js';

type Bench = () => Promise<Section>;

const BENCHES: Record<string, () => Promise<Bench>> = {
  engine: () => Promise.resolve(engineBench),
  compare: async () => (await import('./compare.js')).compareBench,
  api: async () => (await import('./api.js')).apiBench,
  batch: async () => (await import('./batch.js')).batchBench,
  scale: async () => (await import('./scale.js')).scaleBench,
  postfix: async () => (await import('./postfix.js')).postfixBench,
  export: async () => (await import('./export.js')).exportBench,
  lists: async () => (await import('./lists.js')).listsBench,
  realmta: async () => (await import('./realmta.js')).realmtaBench,
};

const TITLES: Record<string, string> = {
  engine: '1. Engine throughput against the floor',
  compare: '2. Engine against other verifiers',
  api: '3. API',
  batch: '4. Batches',
  scale: '5. Scale-out',
  postfix: '6. Real Postfix (stock defences)',
  export: '7. Full export at the default limits',
  lists: '8. Lists at scale',
  realmta: '9. Four real MTAs at 0 and 80 ms',
};

const REPORT = fileURLToPath(new URL('../BENCHMARKS.md', import.meta.url));

async function main(): Promise<void> {
  const asked = process.argv.slice(2).filter((a) => a !== '--');
  const unknown = asked.filter((a) => !(a in BENCHES));
  if (unknown.length > 0) {
    process.stderr.write(`unknown benchmark(s): ${unknown.join(', ')}; choose from ${Object.keys(BENCHES).join(', ')}\n`);
    process.exit(2);
  }
  const chosen = asked.length > 0 ? asked : Object.keys(BENCHES);
  const command = `npm run bench${asked.length > 0 ? ` -- ${asked.join(' ')}` : ''}`;
  const sections: Section[] = [];
  const started = performance.now();
  for (const id of chosen) {
    process.stdout.write(`bench ${id}…\n`);
    const t0 = performance.now();
    const load = BENCHES[id];
    if (!load) continue;
    const section = await (await load())().catch(
      (error: unknown): Section => ({
        id,
        title: TITLES[id] ?? id,
        body: `This benchmark failed in this run: \`${String(error instanceof Error ? error.message : error).slice(0, 500)}\``,
        summary: [{ figure: `${id}: benchmark`, measured: 'failed', target: '—', met: null }],
      }),
    );
    sections.push(section);
    for (const s of section.summary) process.stdout.write(`  ${s.figure}: ${s.measured} (target ${s.target}) ${s.met === null ? 'not measured' : s.met ? 'met' : 'MISSED'}\n`);
    process.stdout.write(`  (${Math.round((performance.now() - t0) / 1000)} s)\n`);
    // Written after each benchmark so a later failure keeps the figures already measured.
    writeReport(REPORT, sections, command, PREAMBLE);
  }
  process.stdout.write(`done in ${Math.round((performance.now() - started) / 1000)} s; figures in BENCHMARKS.md\n`);
}

await main();
