/**
 * The one bench world every benchmark shares (issue 7): 100 domains × 100 mailboxes, 20 ms per
 * SMTP reply, greylisting read as its first answer (a single pass sees GREYLISTED; the
 * recheck belongs to the worker, not to one verification).
 */
import { benchWorld, type BenchWorld, type BenchWorldOptions } from '../src/mailworld/index.js';

export const BENCH_WORLD: BenchWorldOptions = {
  domains: 100,
  mailboxesPerDomain: 100,
  commandLatencyMs: 20,
  seed: 42,
  truth: { greylisted: 'first' },
};

/**
 * The same world with real servers' defences (issue 10): Postfix's stock error limits on 95
 * hosts (soft 10 with 1 s sleeps, hard 20), an Exchange-like tarpit on every 20th (each 550
 * 5.1.1 held back 30 ms: the real 5 s scaled down like the world's latency, so the benchmark
 * stays short), and the same 100 ms before every banner as the default world's hosts, so the
 * two worlds differ by the defences alone.
 */
export const LIMITS_WORLD: BenchWorldOptions = {
  ...BENCH_WORLD,
  defences: { tarpitEvery: 20, tarpitMs: 30, greetDelayMs: 100 },
};

/** The addresses and their truth, computed in the parent from the same seed as the child's world. */
export function benchAddresses(options: BenchWorldOptions = BENCH_WORLD): BenchWorld {
  return benchWorld(options);
}
