/**
 * Benchmark 2: the same world through deep-email-validator and email-deep-validator (npm),
 * each in its own process, against Presend's engine in the same run. Their SMTP client is
 * hard-wired to port 25, so this world listens on 127.0.0.x:25 (needs root).
 */
import { fork } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { PublicVerdict } from '../src/core/types.js';
import type { CompareJob, CompareOutcome } from './compare-child.js';
import { table, targetRow, type Section } from './section.js';
import { fmt, median, pct } from './stats.js';
import { MAPPING_TABLE } from './verdict-mapping.js';
import { BENCH_WORLD, LIMITS_WORLD, benchAddresses } from './world-options.js';
import type { BenchWorldOptions } from '../src/mailworld/index.js';
import { startWorldChild } from './world-child.js';

const CHILD = fileURLToPath(new URL('./compare-child.ts', import.meta.url));
const OTHERS_BUDGET_MS = 60_000;
const PRESEND_ROUNDS = 3;
const TARGET_SPEEDUP = 10;

/** Runs one verifier's passes in one child process; `beforeEach` runs before each pass. */
export async function runChild(jobs: CompareJob[], beforeEach: () => Promise<void>): Promise<CompareOutcome[]> {
  const child = fork(CHILD, [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  const outcomes: CompareOutcome[] = [];
  try {
    for (const job of jobs) {
      await beforeEach();
      const outcome = new Promise<CompareOutcome>((resolve, reject) => {
        child.once('message', (message: CompareOutcome) => resolve(message));
        void exited.then((code) => reject(new Error(`${job.verifier} process exited with ${code} and no result`)));
      });
      child.send(job);
      outcomes.push(await outcome);
    }
  } finally {
    child.disconnect();
    await exited;
  }
  return outcomes;
}

export interface Scored {
  name: string;
  version: string;
  checked: number;
  ms: number;
  perSecond: number;
  accuracy: number;
  misses: string;
}

export function score(name: string, version: string, outcomes: CompareOutcome[], truth: Record<string, PublicVerdict>): Scored {
  const ms = median(outcomes.map((o) => o.ms));
  const last = outcomes.at(-1) ?? { ms, verdicts: {} };
  const entries = Object.entries(last.verdicts);
  const misses = new Map<string, number>();
  let correct = 0;
  for (const [email, verdict] of entries) {
    if (truth[email] === verdict) correct++;
    else misses.set(`${truth[email]}→${verdict}`, (misses.get(`${truth[email]}→${verdict}`) ?? 0) + 1);
  }
  const top = [...misses].sort((a, b) => b[1] - a[1]).map(([k, n]) => `${k} ×${n}`);
  return {
    name,
    version,
    checked: entries.length,
    ms,
    perSecond: (entries.length / ms) * 1000,
    accuracy: entries.length > 0 ? correct / entries.length : Number.NaN,
    misses: top.join(', ') || 'none',
  };
}

export function versionOf(pkg: string): string {
  return (JSON.parse(readPackage(pkg)) as { version: string }).version;
}

function readPackage(pkg: string): string {
  return readFileSync(fileURLToPath(new URL(`../node_modules/${pkg}/package.json`, import.meta.url)), 'utf8');
}


interface WorldRound {
  scored: Scored[];
  coldMs: number;
  addresses: number;
}

/** Presend's passes and each npm verifier's, in one world listening on port 25. */
async function roundIn(options: BenchWorldOptions): Promise<WorldRound> {
  const bench = benchAddresses(options);
  const world = await startWorldChild(options, 25);
  const dnsServer = `${world.dns.host}:${world.dns.port}`;
  const job = (verifier: CompareJob['verifier']): CompareJob => ({
    verifier,
    dnsServer,
    env: world.env,
    addresses: bench.addresses,
    perDomain: 2,
    budgetMs: OTHERS_BUDGET_MS,
  });
  const scored: Scored[] = [];
  let coldMs = Number.NaN;
  try {
    // Pass 1 is cold (a fresh process); the figure is the median of the warm passes after it.
    const ours = await runChild(Array.from({ length: PRESEND_ROUNDS + 1 }, () => job('presend')), () => world.reset());
    coldMs = ours[0]?.ms ?? Number.NaN;
    scored.push(score('Presend engine', versionOf('../'), ours.slice(1), bench.truth));
    for (const name of ['deep-email-validator', 'email-deep-validator'] as const) {
      scored.push(score(name, versionOf(name), await runChild([job(name)], () => world.reset()), bench.truth));
      process.stdout.write(`  ${name}: ${fmt(scored.at(-1)?.perSecond ?? 0)} addresses/s\n`);
    }
  } finally {
    await world.close();
  }
  return { scored, coldMs, addresses: bench.addresses.length };
}

function speedupRows(round: WorldRound, worldLabel: string) {
  const presend = round.scored[0];
  return round.scored.slice(1).map((other) => {
    const speedup = (presend?.perSecond ?? 0) / other.perSecond;
    const row = targetRow(
      `engine vs ${other.name}${worldLabel}: throughput (ours 100 % accurate)`,
      `${fmt(speedup, 1)}× (${fmt(presend?.perSecond ?? 0)} vs ${fmt(other.perSecond)} addresses/s; accuracy ${pct(presend?.accuracy ?? 0)} vs ${pct(other.accuracy)})`,
      speedup,
      'at least',
      TARGET_SPEEDUP,
      '×',
      1,
    );
    if (presend?.accuracy !== 1) {
      row.met = false;
      row.gap = `${row.gap ? `${row.gap}; ` : ''}our accuracy ${pct(presend?.accuracy ?? 0, 2)}, not 100 %`;
    }
    return row;
  });
}

function scoreTable(round: WorldRound): string {
  const presend = round.scored[0];
  return table(
    ['verifier', 'addresses checked', 'wall time', 'addresses/s', 'Presend speed-up', 'matches truth', 'mismatches (truth→theirs)'],
    round.scored.map((s) => [
      `${s.name} ${s.version}`,
      fmt(s.checked),
      `${fmt(s.ms)} ms`,
      fmt(s.perSecond),
      s === presend ? '—' : `${fmt((presend?.perSecond ?? 0) / s.perSecond, 1)}×`,
      pct(s.accuracy),
      s.misses,
    ]),
  );
}

export async function compareBench(): Promise<Section> {
  const plain = await roundIn(BENCH_WORLD);
  process.stdout.write('  the same in the limits world\n');
  const limits = await roundIn(LIMITS_WORLD);
  const coldMs = plain.coldMs;
  const defences = LIMITS_WORLD.defences;
  const body = [
    `Same world as benchmark 1 (${fmt(plain.addresses)} addresses, ${BENCH_WORLD.domains} domains, ${BENCH_WORLD.commandLatencyMs} ms per reply), on port 25 of 127.0.0.x. ` +
      'Each verifier runs in its own process with the world given through `dns.setServers` (and `dns.lookup` answered from the same server, as a resolv.conf would). ' +
      `The other two get the same politeness as Presend: at most 2 checks (each one SMTP session) at once per domain, all domains at once; they may start checks for ${OTHERS_BUDGET_MS / 1000} s, ` +
      `and addresses/s is what they finished divided by their wall time. ` +
      `Presend: ${PRESEND_ROUNDS + 1} passes in one process, each with a new engine (empty caches); the first pass pays for JIT warm-up (${fmt(coldMs)} ms, ` +
      `${fmt((plain.addresses / coldMs) * 1000)} addresses/s, ${fmt((plain.addresses / coldMs) * 1000 / Math.max(...plain.scored.slice(1).map((s) => s.perSecond)), 1)}× the faster of the other two), ` +
      `the figure is the median of the ${PRESEND_ROUNDS} warm passes after it. The world's greylisting is reset before every pass.`,
    '',
    scoreTable(plain),
    '',
    '### Limits world',
    '',
    `The same list and passes in benchmark 1's limits world (bench/world-options.ts LIMITS_WORLD): Postfix's stock error limits on 95 hosts, ` +
      `an Exchange-like tarpit of ${defences?.tarpitMs ?? 0} ms on each 550 5.1.1 at every ${defences?.tarpitEvery ?? 0}th host, ${defences?.greetDelayMs ?? 0} ms before each banner. ` +
      'One session per address never sets off an error limit, but it pays the banner delay every time; Presend pays it once per session and keeps each session under the limits.',
    '',
    scoreTable(limits),
    '',
    'Mapping of their outputs to Presend verdicts (only what their output says; neither reports role accounts or catch-all domains, so those rows cannot match):',
    '',
    table(['verifier', 'output', 'verdict'], MAPPING_TABLE),
  ].join('\n');
  return { id: 'compare', title: '2. Engine against other verifiers', body, summary: [...speedupRows(plain, ''), ...speedupRows(limits, ', limits world')] };
}
