/**
 * Serves every role (PostgreSQL). Every role on one PostgreSQL database, shared by every API node and worker (docs/design.md §1
 * scale-out): the shared roles over the store pool with this dialect's claim and bulk writes;
 * rate-limit buckets in a table; engine state (MX session slots, domain facts) on a small pool
 * of its own; wake-ups between processes by LISTEN/NOTIFY.
 */
import { NotifyWakeUps } from '../../queue/postgres-notify.js';
import type { Backend } from '../backend.js';
import type { BackendConfig, Log } from '../backend-config.js';
import { assembleBackend } from '../roles/index.js';
import { postgresBulkWrites } from './bulk-writes.js';
import { claimPostgres } from './claim.js';
import { createPool, PgDatabase } from './database.js';
import { tableRateLimits } from './rate-limits.js';
import { openSharedEngineState } from './shared-engine-state.js';
import { storeFailure } from '../store-failure.js';

export async function openPostgresBackend(databaseUrl: string, config: BackendConfig, log: Log): Promise<Backend> {
  const pool = createPool(databaseUrl, { max: config.databasePoolSize, log });
  const db = new PgDatabase(pool);
  const shared = openSharedEngineState(databaseUrl, config, log);
  // The LISTEN connection opens when a worker first waits for work: API nodes and admin commands never hold one.
  const wakeUps = new NotifyWakeUps({
    databaseUrl,
    query: (sql, params) =>
      pool.query(sql, params).catch((err: unknown) => {
        throw storeFailure(err);
      }),
    log,
  });
  return assembleBackend(
    db,
    { bulk: postgresBulkWrites, claim: claimPostgres, resultsPerWrite: 500, claimPerWrite: Number.POSITIVE_INFINITY },
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
