/**
 * Every role on one PostgreSQL database, shared by every API node and worker (DESIGN.md §1
 * scale-out): the shared roles over the store pool with this dialect's claim and bulk writes;
 * rate-limit buckets in a table; engine state (MX session slots, domain facts) on a small pool
 * of its own; wake-ups between processes.
 */
import { openPgBossQueue } from '../../queue/pg-boss.js';
import type { WakeUps } from '../../queue/queue.js';
import type { Backend } from '../backend.js';
import type { BackendConfig } from '../open-backend.js';
import { assembleBackend } from '../roles/index.js';
import { postgresBulkWrites } from './bulk-writes.js';
import { claimPostgres } from './claim.js';
import { createPool, PgDatabase } from './database.js';
import { tableRateLimits } from './rate-limits.js';
import { openSharedEngineState } from './shared-engine-state.js';

export async function openPostgresBackend(databaseUrl: string, config: BackendConfig): Promise<Backend> {
  const db = new PgDatabase(createPool(databaseUrl, { max: config.databasePoolSize }));
  const shared = openSharedEngineState(databaseUrl, config);
  // pg-boss starts with the first wake-up sent or awaited: an admin command never starts it.
  let started: ReturnType<typeof openPgBossQueue> | null = null;
  const boss = () => (started ??= openPgBossQueue(databaseUrl, { affinity: config.workerId, poolSize: config.queuePoolSize }));
  const wakeUps: WakeUps = {
    publish: async (requestId) => (await boss()).publish(requestId),
    waitForWork: async (signal, maxWaitMs) => (await boss()).waitForWork(signal, maxWaitMs),
    scheduleRecheck: async (affinity, at) => (await boss()).scheduleRecheck(affinity, at),
    close: async () => {
      if (started) await (await started).close();
    },
  };
  return assembleBackend(
    db,
    { bulk: postgresBulkWrites, claim: claimPostgres },
    {
      kind: 'postgres',
      rateLimits: tableRateLimits(db),
      engineState: shared.deps,
      wakeUps,
      purgeEngineState: () => shared.purgeExpired(),
      closeMore: () => shared.close(),
    },
  );
}
