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

/** The addresses and their truth, computed in the parent from the same seed as the child's world. */
export function benchAddresses(options: BenchWorldOptions = BENCH_WORLD): BenchWorld {
  return benchWorld(options);
}
