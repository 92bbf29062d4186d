/**
 * Worker knobs read from the environment by `presend serve` and `presend worker`, next to the
 * config of DESIGN.md §2: PRESEND_WORKER_LEASE_MS (how long a claimed item stays with a worker
 * that stopped answering, default 60000), PRESEND_WORKER_POLL_MS (how often an idle worker looks
 * for work in the store, default 500), PRESEND_WORKER_ID (affinity name for greylisting
 * rechecks, default the host name), PRESEND_WORKER_AFFINITY_GRACE_MS (how long a due recheck
 * waits for its own worker before any worker takes it, default max(recheck delay, 60 s)).
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
} {
  const out: { leaseMs?: number; pollMs?: number; affinity?: string; affinityGraceMs?: number } = {};
  const leaseMs = ms(env, 'PRESEND_WORKER_LEASE_MS');
  const pollMs = ms(env, 'PRESEND_WORKER_POLL_MS');
  const affinityGraceMs = ms(env, 'PRESEND_WORKER_AFFINITY_GRACE_MS');
  if (leaseMs !== undefined) out.leaseMs = leaseMs;
  if (pollMs !== undefined) out.pollMs = pollMs;
  if (affinityGraceMs !== undefined) out.affinityGraceMs = affinityGraceMs;
  if (env.PRESEND_WORKER_ID?.trim()) out.affinity = env.PRESEND_WORKER_ID.trim();
  return out;
}
