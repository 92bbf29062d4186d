/**
 * The BatchQueue on PostgreSQL, carried by pg-boss 10 in its own schema (`pgboss`), so API
 * nodes and workers in different processes and on different hosts wake each other without
 * sharing memory (DESIGN.md §1).
 *
 * Division of labour: the items themselves stay durable in the store and are leased there
 * with FOR UPDATE SKIP LOCKED (domain-grouped chunks, lease expiry for dead workers,
 * idempotent per-item results, affinity for greylisting rechecks). pg-boss carries the
 * signals between processes:
 * - `publish(requestId)` publishes the event `presend-batch-created`; pg-boss copies it into
 *   the wake queue of every subscribed worker (fan-out), so every idle worker starts claiming.
 * - each worker affinity (PRESEND_WORKER_ID, one per egress host) has its own wake queue
 *   `presend-wake-<affinity>`, subscribed the first time that process waits for work; a
 *   greylisting recheck can be scheduled into it with `startAfter`, so the worker that saw
 *   the greylisting wakes when the recheck is due.
 * - `publish` also sends a NOTIFY on BATCH_CREATED_CHANNEL; a worker holds one LISTEN
 *   connection and wakes at once instead of at its next pg-boss poll (up to `pollMs` later).
 *   NOTIFY is best effort (not delivered to a worker that is reconnecting); the pg-boss job
 *   is the durable signal behind it.
 * A lost signal costs at most one poll interval of the worker, never an item.
 */
import pg from 'pg';
import PgBoss from 'pg-boss';
import { WakeSignal } from './wake-signal.js';
import type { WakeUps } from './queue.js';

export const BATCH_CREATED_EVENT = 'presend-batch-created';
/** The LISTEN/NOTIFY channel of the same event (an SQL identifier). */
export const BATCH_CREATED_CHANNEL = 'presend_batch_created';

export interface PgBossQueueOptions {
  /** pg-boss's schema; default `pgboss`. */
  schema?: string;
  /** Affinity name of this process's wake queue (config.workerId, like the worker's). */
  affinity: string;
  /** How often a waiting worker asks pg-boss for wake-ups. Default 200 ms. */
  pollMs?: number;
  /** Connections pg-boss may hold. */
  poolSize: number;
  /** The database, for the LISTEN connection of a waiting worker (openPgBossQueue passes it). */
  databaseUrl?: string;
}

/** pg-boss queue names: letters, digits, `_` and `-`. */
export function wakeQueueName(affinity: string): string {
  return `presend-wake-${affinity.replace(/[^\w-]/g, '_').slice(0, 100)}`;
}

export class PgBossQueue implements WakeUps {
  private readonly wakeups = new WakeSignal();
  private poller: Promise<void> | null = null;
  private subscription: Promise<void> | null = null;
  private readonly queues = new Set<string>();
  private readonly scheduled = new Set<string>();
  private closed = false;
  private readonly wakeQueue: string;
  private readonly pollMs: number;
  private readonly databaseUrl: string | undefined;
  private listener: pg.Client | null = null;
  private listening: Promise<void> | null = null;
  /** Ends the poller's current sleep (close). */
  private stopPolling: (() => void) | null = null;

  constructor(
    readonly boss: PgBoss,
    options: PgBossQueueOptions,
  ) {
    this.wakeQueue = wakeQueueName(options.affinity);
    this.pollMs = options.pollMs ?? 200;
    this.databaseUrl = options.databaseUrl;
  }

  async publish(requestId: string): Promise<void> {
    // pg-boss sends to each subscribed queue; a worker that is gone only leaves a job that expires.
    await this.boss.publish(BATCH_CREATED_EVENT, { requestId }, { retentionMinutes: 10 });
    await this.boss
      .getDb()
      .executeSql('SELECT pg_notify($1, $2)', [BATCH_CREATED_CHANNEL, requestId])
      .catch(() => undefined);
  }

  /**
   * Wakes the workers of `affinity` at `at` (a greylisting recheck that is due then). Rechecks
   * due within the same quarter second share one wake-up job.
   */
  async scheduleRecheck(affinity: string, at: Date): Promise<void> {
    const slot = Math.ceil(at.getTime() / 250) * 250;
    const key = `${affinity}@${slot}`;
    if (this.scheduled.has(key)) return;
    this.scheduled.add(key);
    for (const k of this.scheduled) if (Number(k.slice(k.lastIndexOf('@') + 1)) < Date.now()) this.scheduled.delete(k);
    const queue = wakeQueueName(affinity);
    if (!this.queues.has(queue)) {
      await this.ensureQueue(queue);
      this.queues.add(queue);
    }
    await this.boss.send(queue, { recheck: true }, { startAfter: new Date(slot), retentionMinutes: 60 });
  }

  waitForWork(signal: AbortSignal, maxWaitMs: number): Promise<void> {
    if (!this.closed) this.listen().catch(() => undefined);
    return this.wakeups.wait(signal, maxWaitMs, this.closed);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.wakeups.release();
    this.stopPolling?.();
    await this.poller?.catch(() => undefined);
    await this.listening?.catch(() => undefined);
    await this.listener?.end().catch(() => undefined);
    await this.boss.stop({ graceful: false, wait: true, close: true }).catch(() => undefined);
  }

  private async ensureQueue(name: string): Promise<void> {
    // create_queue is INSERT … ON CONFLICT DO NOTHING inside pg-boss: safe from every process.
    await this.boss.createQueue(name, { name, retentionMinutes: 10, expireInSeconds: 60, retryLimit: 0 });
  }

  /**
   * Subscribes this process's wake queue to batch-created events and starts draining it.
   * The first waitForWork calls it; resolves once the subscription is in place.
   */
  listen(): Promise<void> {
    this.subscription ??= (async () => {
      await this.ensureQueue(this.wakeQueue);
      await this.boss.subscribe(BATCH_CREATED_EVENT, this.wakeQueue);
    })();
    const subscription = this.subscription;
    subscription.catch(() => {
      if (this.subscription === subscription) this.subscription = null; // retried by the poller
    });
    this.listening ??= this.listenForNotifications();
    const listening = this.listening;
    this.poller ??= this.poll();
    // Resolves once subscribed and listening, so a publish after it reaches this worker.
    return subscription.then(() => listening);
  }

  /** One LISTEN connection; a dropped one is opened again by the poller's next round. */
  private async listenForNotifications(): Promise<void> {
    if (!this.databaseUrl || this.closed) return;
    const client = new pg.Client({ connectionString: this.databaseUrl, application_name: 'presend-wake' });
    const drop = () => {
      if (this.listener === client) this.listener = null;
      this.listening = null;
      client.end().catch(() => undefined);
    };
    client.on('error', drop);
    client.on('end', drop);
    client.on('notification', () => this.wakeAll());
    try {
      await client.connect();
      await client.query(`LISTEN ${BATCH_CREATED_CHANNEL}`);
      if (this.closed) return void (await client.end());
      this.listener = client;
    } catch {
      drop();
    }
  }

  private async poll(): Promise<void> {
    while (!this.closed) {
      try {
        this.listening ??= this.listenForNotifications();
        await (this.subscription ?? this.listen());
        const jobs = await this.boss.fetch(this.wakeQueue, { batchSize: 100 });
        if (jobs.length > 0) {
          await this.boss.complete(
            this.wakeQueue,
            jobs.map((j) => j.id),
          );
          this.wakeAll();
          continue;
        }
      } catch {
        // pg-boss or the database is briefly unavailable: the worker still polls the store.
      }
      await new Promise<void>((resolve) => {
        this.stopPolling = resolve;
        setTimeout(resolve, this.pollMs).unref();
      });
    }
  }

  private wakeAll(): void {
    this.wakeups.wake();
  }
}

/** Called by openQueue for `postgres://…` URLs: starts pg-boss (installing its schema once, under its own lock). */
export async function openPgBossQueue(databaseUrl: string, options: PgBossQueueOptions): Promise<PgBossQueue> {
  const boss = new PgBoss({
    connectionString: databaseUrl,
    schema: options.schema ?? 'pgboss',
    max: options.poolSize,
    application_name: 'presend-queue',
    // Presend uses no cron schedules; maintenance (expiry, archiving) stays on.
    schedule: false,
  });
  // pg-boss reports background errors as events; without a listener they would crash the process.
  boss.on('error', () => undefined);
  await boss.start();
  return new PgBossQueue(boss, { databaseUrl, ...options });
}
