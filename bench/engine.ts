/**
 * Benchmark 1: engine throughput against the latency floor. 10,000 addresses over 100 mail-world
 * domains (one MX host each), 20 ms per SMTP reply, default politeness (PRESEND_MAX_SESSIONS_PER_MX, 10 sessions per MX host);
 * then the same list in the limits world (world-options.ts LIMITS_WORLD: Postfix's error limits,
 * an Exchange-like tarpit) against the floor those limits allow (limits-floor.ts).
 */
import { loadConfig } from '../src/config.js';
import { createEngine } from '../src/core/index.js';
import type { PublicVerdict } from '../src/core/types.js';
import { idealProbe } from './ideal-prober.js';
import { table, targetRow, type Section } from './section.js';
import { fmt, median, ownCpuMs, pct, processCpuMs, round } from './stats.js';
import { limitsFloor } from './limits-floor.js';
import { BENCH_WORLD, LIMITS_WORLD, benchAddresses } from './world-options.js';
import { startWorldChild, type WorldStats } from './world-child.js';

const ROUNDS = 5;
const LIMITS_ROUNDS = 3;
/** smtp-server holds the banner back 100 ms to catch early talkers (smtp-connection.js init()). */
const EARLY_TALKER_MS = 100;
const TARGET_RATIO = 1.5;

export interface Floor {
  latencyMs: number;
  sessionsPerHost: number;
  addressesPerHost: number;
  ms: number;
}

/**
 * Per MX host the 100 addresses go over 2 sessions (≤ 100 RCPTs per transaction, RFC 5321
 * §4.5.3.1.8, so one transaction per session suffices). Each session must wait for the banner
 * (early-talker delay + one latency), for the EHLO reply (RFC 2920 §3.1: the client learns of
 * PIPELINING only from it, so nothing may be pipelined behind EHLO), then sends MAIL FROM and
 * every RCPT — including the catch-all probe — in one pipelined group: one more latency.
 * QUIT is not waited for. Hosts are independent and run in parallel, DNS on loopback is
 * taken as free, CPU as free.
 */
export function latencyFloor(latencyMs: number, sessionsPerHost: number, addressesPerHost: number): Floor {
  return { latencyMs, sessionsPerHost, addressesPerHost, ms: EARLY_TALKER_MS + latencyMs + latencyMs + latencyMs };
}

interface EngineRun {
  ms: number;
  firstMs: number;
  correct: number;
  mismatches: Map<string, number>;
  cpuMs: number;
  worldCpuMs: number;
  world: WorldStats;
}

export async function engineBench(): Promise<Section> {
  const bench = benchAddresses();
  const latency = BENCH_WORLD.commandLatencyMs ?? 0;
  const world = await startWorldChild(BENCH_WORLD);
  const config = loadConfig({ ...world.env });
  const floor = latencyFloor(latency, config.maxSessionsPerMx, BENCH_WORLD.mailboxesPerDomain);
  const runs: EngineRun[] = [];
  const ideal: number[] = [];
  const warmUp = { engineMs: 0, idealMs: 0 };
  try {
    // One round of each first, not counted: this benchmark measures steady throughput, and
    // both processes (the world's too) run their first pass with cold JIT. Benchmark 2 shows
    // the engine's cold pass.
    await world.reset();
    warmUp.idealMs = await idealProbe(bench.addresses, world.dns, world.smtpPort, config.maxSessionsPerMx);
    await world.reset();
    warmUp.engineMs = (await engineRun(bench.addresses, bench.truth, config, world.pid, () => world.stats())).ms;
    process.stdout.write(`  warm-up round (not counted): ${fmt(warmUp.engineMs)} ms (ideal prober ${fmt(warmUp.idealMs)} ms)\n`);
    for (let round = 0; round < ROUNDS; round++) {
      await world.reset();
      ideal.push(await idealProbe(bench.addresses, world.dns, world.smtpPort, config.maxSessionsPerMx));
      await world.reset();
      runs.push(await engineRun(bench.addresses, bench.truth, config, world.pid, () => world.stats()));
      process.stdout.write(`  engine round ${round + 1}: ${fmt(runs.at(-1)?.ms ?? 0)} ms (ideal prober ${fmt(ideal.at(-1) ?? 0)} ms)\n`);
    }
  } finally {
    await world.close();
  }
  const ms = median(runs.map((r) => r.ms));
  const ratio = ms / floor.ms;
  const idealMs = median(ideal);
  const last = runs.at(-1);
  const accuracy = median(runs.map((r) => r.correct / bench.addresses.length));
  const mismatches = [...(last?.mismatches ?? new Map<string, number>())].map(([k, n]) => `${k} ×${n}`).join(', ') || 'none';
  const body = [
    `World: ${fmt(bench.addresses.length)} addresses over ${BENCH_WORLD.domains} domains, one MX host each, ${latency} ms before every SMTP reply, ` +
      `politeness ${config.maxSessionsPerMx} sessions per MX host; mail world in its own process. ${ROUNDS} rounds after one warm-up round of each (not counted), medians.`,
    '',
    `**Floor** = early-talker delay ${EARLY_TALKER_MS} ms (smtp-server holds every banner back) + banner latency ${latency} ms + EHLO ${latency} ms ` +
      `+ one pipelined MAIL/RCPT×${Math.ceil(floor.addressesPerHost / floor.sessionsPerHost)} (+ catch-all probe) group ${latency} ms = **${floor.ms} ms**. ` +
      `Assumptions: each host's ${floor.addressesPerHost} addresses split over its ${floor.sessionsPerHost} sessions, one transaction each (≤ 100 RCPTs, RFC 5321 §4.5.3.1.8); ` +
      'nothing pipelined behind EHLO (RFC 2920 §3.1: PIPELINING is only known from the EHLO reply); hosts in parallel; ' +
      `DNS, connect and CPU free; QUIT not awaited. Without PIPELINING each RCPT would add a round trip (${Math.ceil(floor.addressesPerHost / floor.sessionsPerHost)} × ${latency} ms per session).`,
    '',
    table(
      ['figure', 'value'],
      [
        ['engine, 10,000 addresses (median)', `${fmt(ms)} ms (runs: ${runs.map((r) => fmt(r.ms)).join(', ')})`],
        ['throughput', `${fmt((bench.addresses.length / ms) * 1000)} addresses/s`],
        ['**measured / floor**', `**${fmt(ratio, 2)}** (target ≤ ${TARGET_RATIO})`],
        ['ideal prober on this machine (median)', `${fmt(idealMs)} ms = ${fmt(idealMs / floor.ms, 2)} × floor (runs: ${ideal.map((v) => fmt(v)).join(', ')})`],
        ['measured / ideal prober', fmt(ms / idealMs, 2)],
        ['first result after', `${fmt(median(runs.map((r) => r.firstMs)))} ms`],
        ['warm-up round, not counted (cold JIT)', `engine ${fmt(warmUp.engineMs)} ms, ideal prober ${fmt(warmUp.idealMs)} ms`],
        ['engine CPU (process, median)', `${fmt(median(runs.map((r) => r.cpuMs)))} ms = ${fmt((median(runs.map((r) => r.cpuMs)) * 1000) / bench.addresses.length, 1)} µs per address`],
        ['mail world CPU (its process, median)', `${fmt(median(runs.map((r) => r.worldCpuMs)))} ms`],
        ['SMTP sessions / RCPTs / peak sessions per host (last run)', `${last?.world.sessions ?? 'n/a'} / ${last?.world.rcpts ?? 'n/a'} / ${last?.world.peakPerHost ?? 'n/a'}`],
        ['verdicts matching the world\'s truth', `${pct(accuracy, 2)} (mismatches, truth→engine: ${mismatches})`],
      ],
    ),
  ].join('\n');
  const limits = await limitsWorldRuns();
  return {
    id: 'engine',
    title: '1. Engine throughput against the floor',
    body: `${body}\n\n${limits.body}`,
    summary: [
      targetRow('engine: measured / floor', `${fmt(ratio, 2)} (${fmt(ms)} ms vs ${floor.ms} ms; ideal prober ${fmt(idealMs / floor.ms, 2)})`, ratio, 'at most', TARGET_RATIO, '', 2),
      limits.row,
    ],
  };
}

/** The limits world: same list, hosts with real servers' defences, the floor they allow. */
async function limitsWorldRuns(): Promise<{ body: string; row: ReturnType<typeof targetRow> }> {
  const bench = benchAddresses(LIMITS_WORLD);
  const world = await startWorldChild(LIMITS_WORLD);
  const config = loadConfig({ ...world.env });
  const floor = limitsFloor(bench, LIMITS_WORLD, config.maxSessionsPerMx);
  const runs: EngineRun[] = [];
  let warmMs = 0;
  try {
    await world.reset();
    warmMs = (await engineRun(bench.addresses, bench.truth, config, world.pid, () => world.stats())).ms;
    process.stdout.write(`  limits world warm-up round (not counted): ${fmt(warmMs)} ms\n`);
    for (let round = 0; round < LIMITS_ROUNDS; round++) {
      await world.reset();
      runs.push(await engineRun(bench.addresses, bench.truth, config, world.pid, () => world.stats()));
      process.stdout.write(`  limits world round ${round + 1}: ${fmt(runs.at(-1)?.ms ?? 0)} ms\n`);
    }
  } finally {
    await world.close();
  }
  const ms = median(runs.map((r) => r.ms));
  const ratio = ms / floor.ms;
  const last = runs.at(-1);
  const accuracy = median(runs.map((r) => r.correct / bench.addresses.length));
  const hits = last?.world.limitHits ?? {};
  const avoidable = (hits.error_sleep ?? 0) + (hits.too_many_errors ?? 0);
  const mismatches = [...(last?.mismatches ?? new Map<string, number>())].map(([k, n]) => `${k} ×${n}`).join(', ') || 'none';
  const latency = LIMITS_WORLD.commandLatencyMs ?? 0;
  const defences = LIMITS_WORLD.defences;
  const body = [
    `### Limits world`,
    '',
    `The same ${fmt(bench.addresses.length)} addresses with real servers' defences (bench/world-options.ts LIMITS_WORLD): 95 hosts with Postfix's stock error limits ` +
      `(soft 10 with 1 s sleeps, hard 20 → 421), every ${defences?.tarpitEvery ?? 0}th host an Exchange-like tarpit of ${defences?.tarpitMs ?? 0} ms on each 550 5.1.1 ` +
      `(Exchange's 5 s scaled down like the world's latency), ${defences?.greetDelayMs ?? 0} ms before each banner as in the default world. ${LIMITS_ROUNDS} rounds after one warm-up, medians.`,
    '',
    `**Floor** (bench/limits-floor.ts) = the slowest host's: a Postfix host with R refusals (the catch-all probe counted) needs max(2, ⌈R / 9⌉) sessions ` +
      `(9 errors per session stay under the soft limit), 2 at a time, each round ${defences?.greetDelayMs ?? 0} + 3 × ${latency} ms (banner, EHLO, one group); ` +
      `a tarpit host's unknown recipients cost ⌈T / 2⌉ tarpit delays on the busier of its 2 sessions, after one such round. ` +
      `Postfix hosts' floor ${fmt(floor.postfixMs)} ms, tarpit hosts' ${fmt(floor.tarpitMs)} ms: **${fmt(floor.ms)} ms** (${floor.slowest}). ` +
      'The floor knows in advance which recipients are refused; a prober learns it from the replies.',
    '',
    table(
      ['figure', 'value'],
      [
        ['engine, 10,000 addresses (median)', `${fmt(ms)} ms (runs: ${runs.map((r) => fmt(r.ms)).join(', ')}; warm-up ${fmt(warmMs)} ms)`],
        ['throughput', `${fmt((bench.addresses.length / ms) * 1000)} addresses/s`],
        ['**measured / floor**', `**${fmt(ratio, 2)}** (target ≤ ${TARGET_RATIO})`],
        ['defences set off (last run)', Object.entries(hits).map(([k, n]) => `${k} ×${n}`).join(', ') || 'none'],
        ['SMTP sessions / RCPTs / peak sessions per host (last run)', `${last?.world.sessions ?? 'n/a'} / ${last?.world.rcpts ?? 'n/a'} / ${last?.world.peakPerHost ?? 'n/a'}`],
        ["verdicts matching the world's truth", `${pct(accuracy, 2)} (mismatches, truth→engine: ${mismatches})`],
      ],
    ),
    '',
    'Tarpit hits are each unknown recipient at a tarpit host being held back once: a verifier cannot learn that an address is unknown without that reply.',
  ].join('\n');
  const row = targetRow(
    'engine, limits world: measured / floor',
    `${fmt(ratio, 2)} (${fmt(ms)} ms vs ${fmt(floor.ms)} ms; ${pct(accuracy, 2)} right; error sleeps + 421s: ${avoidable})`,
    ratio,
    'at most',
    TARGET_RATIO,
    '',
    2,
  );
  if (accuracy !== 1 || avoidable > 0) {
    row.met = false;
    row.gap = `${row.gap ? `${row.gap}; ` : ''}${accuracy !== 1 ? `accuracy ${pct(accuracy, 2)}` : ''}${avoidable > 0 ? ` ${avoidable} limit hits` : ''}`.trim();
  }
  return { body, row };
}

async function engineRun(
  addresses: readonly string[],
  truth: Record<string, PublicVerdict>,
  config: ReturnType<typeof loadConfig>,
  worldPid: number,
  worldStats: () => Promise<WorldStats>,
): Promise<EngineRun> {
  const engine = createEngine(config);
  const mismatches = new Map<string, number>();
  let correct = 0;
  let firstMs = 0;
  const worldCpu0 = await processCpuMs(worldPid);
  const cpu0 = ownCpuMs();
  const started = performance.now();
  await engine.verifyMany(addresses, (result) => {
    if (firstMs === 0) firstMs = performance.now() - started;
    const expected = truth[result.email];
    if (result.envelope.verdict === expected) correct++;
    else {
      const key = `${expected}→${result.envelope.verdict}`;
      mismatches.set(key, (mismatches.get(key) ?? 0) + 1);
    }
  });
  const ms = performance.now() - started;
  const cpuMs = ownCpuMs() - cpu0;
  await engine.close();
  const worldCpuMs = (await processCpuMs(worldPid)) - worldCpu0;
  return { ms: round(ms), firstMs, correct, mismatches, cpuMs, worldCpuMs, world: await worldStats() };
}
