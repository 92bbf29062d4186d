/**
 * The queue for a database URL: embedded on SQLite, pg-boss on PostgreSQL (DESIGN.md §1).
 * The pg-boss adapter is loaded only when asked for.
 */
import type { BatchQueue } from './queue.js';
import { EmbeddedQueue } from './embedded.js';

export async function openQueue(databaseUrl: string): Promise<BatchQueue> {
  if (databaseUrl.startsWith('postgres://') || databaseUrl.startsWith('postgresql://')) {
    const modulePath = './pg-boss.js';
    const mod = (await import(modulePath)) as { openPgBossQueue(url: string): Promise<BatchQueue> };
    return mod.openPgBossQueue(databaseUrl);
  }
  return new EmbeddedQueue();
}
