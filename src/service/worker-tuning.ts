/**
 * Worker knobs read from the environment by `presend serve` and `presend worker`, next to the
 * config of DESIGN.md §2: PRESEND_WORKER_LEASE_MS (how long a claimed item stays with a worker
 * that stopped answering, default 60000), PRESEND_WORKER_POLL_MS (how often an idle worker looks
 * for work in the store, default 500), PRESEND_WORKER_ID (affinity name for greylisting
 * rechecks, default the host name), PRESEND_WORKER_AFFINITY_GRACE_MS (how long a due recheck
 * waits for its own worker before any worker takes it, default max(recheck delay, 60 s)),
 * PRESEND_WORKER_PARALLEL_CHUNKS (chunks of PRESEND_WORKER_CONCURRENCY items one worker
 * verifies at once, default 2).
 */
import { ConfigError } from '../config.js';

function ms(env: Record<string, string | undefined>, name: string): number | undefined {
  const raw = env[name]?.trim();
  if (!raw) return undefined;
  if (!/^\d+$/.test(raw) || Number(raw) < 10) throw new ConfigError(name, `expected milliseconds ≥ 10, got "${raw}"`);
  return Number(raw);
}

export function workerTuning(env: Record<string, string | undefined> = process.env): {
  leaseMs?: number;
  pollMs?: number;
  affinity?: string;
  affinityGraceMs?: number;
  parallelChunks?: number;
} {
  const out: { leaseMs?: number; pollMs?: number; affinity?: string; affinityGraceMs?: number; parallelChunks?: number } = {};
  const leaseMs = ms(env, 'PRESEND_WORKER_LEASE_MS');
  const pollMs = ms(env, 'PRESEND_WORKER_POLL_MS');
  const affinityGraceMs = ms(env, 'PRESEND_WORKER_AFFINITY_GRACE_MS');
  if (leaseMs !== undefined) out.leaseMs = leaseMs;
  if (pollMs !== undefined) out.pollMs = pollMs;
  if (affinityGraceMs !== undefined) out.affinityGraceMs = affinityGraceMs;
  if (env.PRESEND_WORKER_ID?.trim()) out.affinity = env.PRESEND_WORKER_ID.trim();
  const parallel = env.PRESEND_WORKER_PARALLEL_CHUNKS?.trim();
  if (parallel) {
    if (!/^\d+$/.test(parallel) || Number(parallel) < 1 || Number(parallel) > 64) {
      throw new ConfigError('PRESEND_WORKER_PARALLEL_CHUNKS', `expected an integer 1–64, got "${parallel}"`);
    }
    out.parallelChunks = Number(parallel);
  }
  return out;
}
