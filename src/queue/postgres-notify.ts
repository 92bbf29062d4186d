/**
 * Role: work queue (its wake-ups, PostgreSQL). Wake-ups between processes on PostgreSQL: `publish` sends a NOTIFY on WORK_CHANNEL; a process
 * whose workers wait for work holds one LISTEN connection and wakes them when it hears one. It
 * is only a doorbell: the work is the items table (src/store/backend.ts WorkQueueRole), leased
 * with FOR UPDATE SKIP LOCKED, so a notification lost while a listener reconnects costs that
 * worker one poll interval (config.workerPollMs), never an item. A greylisting recheck needs no
 * message: the worker that saw the greylisting wakes itself when it is due
 * (src/service/batches/batch-runner.ts), and any other worker of its affinity finds it at its next poll.
 * (docs/architecture.md, "The queue": why not pg-boss.)
 */
import pg from 'pg';
import type { Logger } from '../logger.js';
import type { WakeUps } from './queue.js';
import { WakeSignal } from './wake-signal.js';

/** The LISTEN/NOTIFY channel (an SQL identifier). */
export const WORK_CHANNEL = 'presend_work';

export interface NotifyWakeUpsOptions {
  databaseUrl: string;
  /** Sends one statement on the store's pool (the NOTIFY of `publish`). */
  query(sql: string, params: unknown[]): Promise<unknown>;
  log: Logger;
  /** Least time between two attempts to open the LISTEN connection. Default 1 s. */
  reconnectMs?: number;
}

export class NotifyWakeUps implements WakeUps {
  private readonly wakeups = new WakeSignal();
  private listener: pg.Client | null = null;
  private connecting: Promise<void> | null = null;
  private lastAttempt = 0;
  private closed = false;

  constructor(private readonly o: NotifyWakeUpsOptions) {}

  async publish(requestId: string): Promise<void> {
    try {
      await this.o.query('SELECT pg_notify($1, $2)', [WORK_CHANNEL, requestId]);
    } catch (err) {
      // The request is stored: workers find it at their next poll.
      this.o.log.warn({ err, requestId }, 'could not notify workers of new work; they will find it at their next poll');
    }
  }

  waitForWork(signal: AbortSignal, maxWaitMs: number): Promise<void> {
    if (!this.closed && !this.listener && !this.connecting && Date.now() - this.lastAttempt >= (this.o.reconnectMs ?? 1_000)) this.connecting = this.listen();
    return this.wakeups.wait(signal, maxWaitMs, this.closed);
  }


  /** Resolves once this process LISTENs (tests: a publish after it is heard). */
  async listening(): Promise<void> {
    this.connecting ??= this.listener ? null : this.listen();
    await this.connecting;
    if (!this.listener) throw new Error('not listening');
  }

  async close(): Promise<void> {
    this.closed = true;
    this.wakeups.release();
    await this.connecting;
    const client = this.listener;
    this.listener = null;
    await client?.end();
  }

  private async listen(): Promise<void> {
    this.lastAttempt = Date.now();
    const client = new pg.Client({ connectionString: this.o.databaseUrl, application_name: 'presend-wake' });
    const drop = (err?: unknown) => {
      if (this.listener !== client) return;
      this.listener = null;
      if (!this.closed) this.o.log.warn({ err }, 'lost the LISTEN connection; workers poll until it is back');
      client.end().catch((endErr: unknown) => this.o.log.debug({ err: endErr }, 'closing the broken LISTEN connection failed'));
    };
    client.on('error', drop);
    client.on('end', () => drop());
    client.on('notification', () => this.wakeups.wake());
    try {
      await client.connect();
      await client.query(`LISTEN ${WORK_CHANNEL}`);
      if (this.closed) {
        await client.end();
        return;
      }
      this.listener = client;
    } catch (err) {
      this.o.log.warn({ err }, 'could not LISTEN for new work; workers poll meanwhile');
      await client.end().catch((endErr: unknown) => this.o.log.debug({ err: endErr }, 'closing the failed LISTEN connection failed'));
    } finally {
      this.connecting = null;
    }
  }
}
