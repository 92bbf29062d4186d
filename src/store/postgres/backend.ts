/** Every role on one PostgreSQL database, shared by every API node and worker (DESIGN.md §1 scale-out). */
import type { Backend } from '../backend.js';
import type { BackendConfig } from '../open-backend.js';
import { rolesOf } from '../legacy-roles.js';
import { openPgBossQueue } from '../../queue/pg-boss.js';
import type { BatchQueue } from '../../queue/queue.js';
import { openPostgresStore } from './postgres-store.js';
import { openSharedEngineState } from './shared-engine-state.js';
import { postgresDb } from '../interim-db.js';
import { openOwnerRoles } from '../roles/owner-roles.js';

export async function openPostgresBackend(databaseUrl: string, config: BackendConfig): Promise<Backend> {
  const store = await openPostgresStore(databaseUrl, { max: config.databasePoolSize });
  const shared = openSharedEngineState(databaseUrl, config);
  // pg-boss starts with the first wake-up sent or awaited: an admin command never starts it.
  let started: ReturnType<typeof openPgBossQueue> | null = null;
  const boss = () => (started ??= openPgBossQueue(databaseUrl, { affinity: config.workerId, poolSize: config.queuePoolSize }));
  const queue: BatchQueue = {
    publish: async (requestId) => (await boss()).publish(requestId),
    waitForWork: async (signal, maxWaitMs) => (await boss()).waitForWork(signal, maxWaitMs),
    scheduleRecheck: async (affinity, at) => (await boss()).scheduleRecheck(affinity, at),
    close: async () => {
      if (started) await (await started).close();
    },
  };
  return rolesOf(store, queue, shared.deps, openOwnerRoles(postgresDb(store.db)), () => shared.close());
}
