/**
 * The webhook sender of a serving process: takes due deliveries from the store under a lease,
 * signs and posts each (signing.ts, safe-post.ts), and writes back how it went — delivered (2xx),
 * tried again later on the retry schedule (retry-schedule.ts), or the endpoint disabled (410
 * Gone). Every node runs one; the store's claim hands each delivery to one of them. A node that
 * dies mid-attempt leaves a leased row that another takes over once the lease lapses, so each
 * event is delivered at least once; receivers de-duplicate on `webhook-id`, which every attempt
 * of an event repeats.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { WebhooksRole } from '../../store/roles/webhooks/webhooks.js';
import type { ClaimedDelivery, DeliveryOutcome } from '../../store/roles/webhooks/webhook-records.js';
import type { PrivateMxAllowance } from '../../core/dns/address-safety.js';
import type { Logger } from '../../logger.js';
import type { PresendConfig } from '../../config.js';
import type { Metrics } from '../operations/metrics.js';
import { nextAttemptAt, retryAfterMs } from './retry-schedule.js';
import { postWebhook } from './safe-post.js';
import type { ResolveHost } from './safe-post.js';
import { webhookHeaders } from './signing.js';

export interface WebhookSenderOptions {
  webhooks: WebhooksRole;
  allowPrivate: PrivateMxAllowance;
  /** One attempt's deadline, connection to answer (PRESEND_WEBHOOK_TIMEOUT_MS). */
  timeoutMs: number;
  /** How often an idle sender looks for due deliveries (PRESEND_WEBHOOK_POLL_MS). */
  pollMs: number;
  /** Deliveries one claim takes, sent at once. */
  batchSize?: number;
  log: Logger;
  metrics?: Metrics;
  now?: () => Date;
  /** In [0, 1): the retry schedule's jitter (tests pin it). */
  random?: () => number;
  resolve?: ResolveHost;
}

/** A sender's options from the configuration, for the processes that run one (src/processes: serve and worker). */
export function webhookSenderOptions(config: PresendConfig, webhooks: WebhooksRole, log: Logger): WebhookSenderOptions {
  return { webhooks, allowPrivate: config.allowPrivateWebhooks, timeoutMs: config.webhookTimeoutMs, pollMs: config.webhookPollMs, log };
}

const DEFAULT_BATCH = 20;
/**
 * A delivery's lease, in attempt deadlines: twice the longest an attempt can take, so a live
 * sender's lease never lapses under it, while a dead sender's delivery is taken over soon after.
 */
const LEASE_IN_DEADLINES = 2;

export class WebhookSender {
  readonly owner = `webhooks#${randomUUID()}`;
  private readonly abort = new AbortController();
  private loop: Promise<void> | null = null;
  private readonly now: () => Date;
  private readonly random: () => number;

  constructor(private readonly o: WebhookSenderOptions) {
    this.now = o.now ?? (() => new Date());
    this.random = o.random ?? Math.random;
  }

  start(): void {
    this.loop ??= this.run();
  }

  /** Stops claiming; attempts under way finish (each within its deadline). */
  async stop(): Promise<void> {
    this.abort.abort();
    await this.loop;
  }

  private async run(): Promise<void> {
    const signal = this.abort.signal;
    while (!signal.aborted) {
      let full = false;
      try {
        full = (await this.sendDue()) === (this.o.batchSize ?? DEFAULT_BATCH);
      } catch (err) {
        this.o.log.warn({ err }, 'webhook deliveries could not be claimed');
      }
      if (!full) await sleep(this.o.pollMs, undefined, { signal }).catch(() => undefined);
    }
  }

  /** Claims the due deliveries (at most one batch) and makes one attempt at each; returns how many. */
  async sendDue(): Promise<number> {
    const now = this.now();
    const claimed = await this.o.webhooks.claimDue({
      owner: this.owner,
      now,
      leaseUntil: new Date(now.getTime() + LEASE_IN_DEADLINES * this.o.timeoutMs),
      limit: this.o.batchSize ?? DEFAULT_BATCH,
    });
    await Promise.all(claimed.map((d) => this.attempt(d)));
    return claimed.length;
  }

  private async attempt(delivery: ClaimedDelivery): Promise<void> {
    const headers = webhookHeaders(delivery.secrets, delivery.eventId, this.now(), delivery.payload);
    const answer = await postWebhook(delivery.url, delivery.payload, headers, { allowPrivate: this.o.allowPrivate, timeoutMs: this.o.timeoutMs, ...(this.o.resolve ? { resolve: this.o.resolve } : {}) });
    const done = this.now();
    const attempts = delivery.attempts + 1;
    let outcome: DeliveryOutcome;
    if (answer.kind === 'no_answer') {
      outcome = { kind: 'retry', status: null, error: answer.error, retryAt: nextAttemptAt(attempts, done, this.random) };
    } else if (answer.status >= 200 && answer.status <= 299) {
      outcome = { kind: 'delivered', status: answer.status };
    } else if (answer.status === 410) {
      outcome = { kind: 'gone', status: 410 };
    } else {
      // 3xx included: redirects are not followed (Standard Webhooks, "Delivery success and failure").
      const retryAt = nextAttemptAt(attempts, done, this.random, retryAfterMs(answer.retryAfter, done));
      outcome = { kind: 'retry', status: answer.status, error: `answered HTTP ${answer.status}`, retryAt };
    }
    const refused = answer.kind === 'no_answer' && answer.refused;
    this.o.metrics?.observeWebhookAttempt(refused ? 'refused' : outcome.kind);
    try {
      const recorded = await this.o.webhooks.recordOutcome({ deliveryId: delivery.id, owner: this.owner, outcome, now: done });
      if (!recorded) this.o.log.info({ deliveryId: delivery.id }, 'a webhook delivery was taken over by another sender before its outcome was written');
    } catch (err) {
      // Unwritten: the lease lapses and the delivery is attempted again (at least once, never lost).
      this.o.log.warn({ err, deliveryId: delivery.id }, 'the outcome of a webhook attempt could not be written');
    }
  }
}
