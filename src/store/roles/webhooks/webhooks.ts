/**
 * Role: webhooks (endpoints and deliveries). Endpoints are an account's; deliveries are rows the
 * senders lease the way the store leases all its work (leases.ts and the
 * items' claim): a claim moves due rows to `sending` with an owner and a lease (SKIP LOCKED on
 * PostgreSQL, one writer at a time on SQLite), the outcome is written only by the lease's owner,
 * and a lease that lapsed — its sender died mid-attempt — makes the row claimable again. An
 * attempt cannot outlast its timeout, so the lease is never renewed: the sender leases for longer
 * than one attempt can take.
 */
import { randomUUID } from 'node:crypto';
import { list } from '../../sql.js';
import type { Db, Tx } from '../../sql.js';
import type { ClaimedDelivery, DeliveryOutcome, WebhookDelivery, WebhookEndpoint, WebhookEventType } from './webhook-records.js';
import { insertDelivery, newMessageId } from './webhook-outbox.js';

/**
 * Signed webhooks (docs/webhooks.md): an account's endpoints and the deliveries of their events.
 * Events are written by the transactions of the changes they announce (src/store/roles/webhooks/webhook-outbox.ts);
 * senders lease due deliveries here, so a sender that dies leaves rows another takes over.
 */
export interface WebhooksRole {
  createEndpoint(input: { accountId: string; url: string; events: readonly WebhookEventType[]; description: string | null; secret: string; now: Date }): Promise<WebhookEndpoint>;
  /** Oldest first. */
  listEndpoints(accountId: string): Promise<WebhookEndpoint[]>;
  /** Null for an unknown id or another account's endpoint. */
  getEndpoint(accountId: string, endpointId: string): Promise<WebhookEndpoint | null>;
  /** The endpoint and its deliveries; false for an unknown id or another account's. */
  deleteEndpoint(accountId: string, endpointId: string): Promise<boolean>;
  /** A new secret signs from now on; the one before keeps signing beside it until `graceUntil`. Null for an unknown id or another account's. */
  rotateSecret(input: { accountId: string; endpointId: string; secret: string; graceUntil: Date; now: Date }): Promise<WebhookEndpoint | null>;
  /** An endpoint disabled (by a 410) takes events again; null for an unknown id or another account's. */
  enableEndpoint(accountId: string, endpointId: string): Promise<WebhookEndpoint | null>;
  /** A `webhook.test` event for this one endpoint, due now; null for an unknown id or another account's. */
  sendTest(input: { accountId: string; endpointId: string; now: Date }): Promise<WebhookDelivery | null>;
  /**
   * Leases up to `limit` deliveries until `leaseUntil`: pending ones that are due, and ones whose
   * sender's lease lapsed (it died mid-attempt). Each claim counts an attempt. Two callers never
   * take the same delivery.
   */
  claimDue(input: { owner: string; now: Date; leaseUntil: Date; limit: number }): Promise<ClaimedDelivery[]>;
  /**
   * Records how an attempt ended; false when `owner` no longer holds the delivery (its lease
   * lapsed and another sender took it): nothing is written then. A 410 disables the endpoint
   * and ends its other pending deliveries, in the same transaction.
   */
  recordOutcome(input: { deliveryId: string; owner: string; outcome: DeliveryOutcome; now: Date }): Promise<boolean>;
  /** Newest first; empty for another account's endpoint. */
  deliveries(accountId: string, endpointId: string, limit: number): Promise<WebhookDelivery[]>;
  /**
   * Sends a delivered or failed delivery again, due now, with its retry schedule started over
   * (same event, same `webhook-id`). Null when it is unknown, another account's, still under
   * way, or its endpoint is disabled.
   */
  resend(input: { accountId: string; deliveryId: string; now: Date }): Promise<WebhookDelivery | null>;
  /** Events created before `before` whose deliveries all ended (retention); returns how many. */
  purgeFinished(before: Date): Promise<number>;
}

interface EndpointRow {
  id: string;
  account_id: string;
  url: string;
  events: string;
  description: string | null;
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: string | null;
  created_at: string;
  disabled_at: string | null;
  disabled_reason: string | null;
}

const toEndpoint = (r: EndpointRow): WebhookEndpoint => ({
  id: r.id,
  accountId: r.account_id,
  url: r.url,
  events: r.events.split(',').filter((e) => e !== '') as WebhookEventType[],
  description: r.description,
  createdAt: r.created_at,
  disabledAt: r.disabled_at,
  disabledReason: r.disabled_reason,
  previousSecretExpiresAt: r.previous_secret_expires_at,
});

interface DeliveryRow {
  id: string;
  event_id: string;
  endpoint_id: string;
  type: WebhookEventType;
  state: WebhookDelivery['state'];
  attempts: number;
  next_attempt_at: string | null;
  last_attempt_at: string | null;
  last_status: number | null;
  last_error: string | null;
  delivered_at: string | null;
  created_at: string;
}

const toDelivery = (r: DeliveryRow): WebhookDelivery => ({
  id: r.id,
  eventId: r.event_id,
  endpointId: r.endpoint_id,
  eventType: r.type,
  state: r.state,
  attempts: Number(r.attempts),
  nextAttemptAt: r.next_attempt_at,
  lastAttemptAt: r.last_attempt_at,
  lastStatus: r.last_status === null ? null : Number(r.last_status),
  lastError: r.last_error,
  deliveredAt: r.delivered_at,
  createdAt: r.created_at,
});

const DELIVERY_COLUMNS = `d.id, d.event_id, d.endpoint_id, e.type, d.state, d.attempts, d.next_attempt_at, d.last_attempt_at, d.last_status, d.last_error, d.delivered_at, d.created_at`;

async function endpointOf(tx: Tx, accountId: string, endpointId: string): Promise<EndpointRow | undefined> {
  return tx.get<EndpointRow>('SELECT * FROM webhook_endpoints WHERE id = ? AND account_id = ?', [endpointId, accountId]);
}

async function deliveryOf(tx: Tx, deliveryId: string): Promise<WebhookDelivery | null> {
  const row = await tx.get<DeliveryRow>(`SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id WHERE d.id = ?`, [deliveryId]);
  return row ? toDelivery(row) : null;
}

/** The longest error text kept per delivery: enough to read, never a whole response body. */
const MAX_ERROR = 300;

export function webhooksRole(db: Db): WebhooksRole {
  return {
    createEndpoint: (input) =>
      db.write(async (tx) => {
        const row = await tx.get<EndpointRow>(
          'INSERT INTO webhook_endpoints (id, account_id, url, events, description, secret, created_at) VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING *',
          [randomUUID(), input.accountId, input.url, input.events.join(','), input.description, input.secret, input.now],
        );
        return toEndpoint(row as EndpointRow);
      }),

    listEndpoints: async (accountId) =>
      (await db.all<EndpointRow>('SELECT * FROM webhook_endpoints WHERE account_id = ? ORDER BY created_at, id', [accountId])).map(toEndpoint),

    getEndpoint: async (accountId, endpointId) => {
      const row = await endpointOf(db, accountId, endpointId);
      return row ? toEndpoint(row) : null;
    },

    deleteEndpoint: (accountId, endpointId) =>
      db.write(async (tx) => {
        if (!(await endpointOf(tx, accountId, endpointId))) return false;
        await tx.run('DELETE FROM webhook_deliveries WHERE endpoint_id = ?', [endpointId]);
        await tx.run('DELETE FROM webhook_endpoints WHERE id = ?', [endpointId]);
        return true;
      }),

    rotateSecret: (input) =>
      db.write(async (tx) => {
        const row = await tx.get<EndpointRow>(
          `UPDATE webhook_endpoints SET previous_secret = secret, previous_secret_expires_at = ?, secret = ? WHERE id = ? AND account_id = ? RETURNING *`,
          [input.graceUntil, input.secret, input.endpointId, input.accountId],
        );
        return row ? toEndpoint(row) : null;
      }),

    enableEndpoint: async (accountId, endpointId) => {
      const row = await db.get<EndpointRow>('UPDATE webhook_endpoints SET disabled_at = NULL, disabled_reason = NULL WHERE id = ? AND account_id = ? RETURNING *', [
        endpointId,
        accountId,
      ]);
      return row ? toEndpoint(row) : null;
    },

    sendTest: (input) =>
      db.write(async (tx) => {
        if (!(await endpointOf(tx, input.accountId, input.endpointId))) return null;
        const eventId = newMessageId(input.now);
        const payload = JSON.stringify({ type: 'webhook.test', timestamp: input.now.toISOString(), data: { endpointId: input.endpointId } });
        await tx.run('INSERT INTO webhook_events (id, account_id, type, subject, payload, created_at) VALUES (?, ?, ?, ?, ?, ?)', [
          eventId,
          input.accountId,
          'webhook.test',
          eventId,
          payload,
          input.now,
        ]);
        return deliveryOf(tx, await insertDelivery(tx, eventId, input.endpointId, input.now));
      }),

    // The claim pattern of the store's other leased work: lease the due rows in one statement,
    // skipping those another transaction holds, then read what the attempts need.
    claimDue: (input) =>
      db.write(async (tx) => {
        const taken = await tx.all<{ id: string; attempts: number }>(
          `UPDATE webhook_deliveries SET state = 'sending', lease_owner = ?, lease_expires_at = ?, attempts = attempts + 1 WHERE id IN (
             SELECT id FROM webhook_deliveries
             WHERE (state = 'pending' AND next_attempt_at <= ?) OR (state = 'sending' AND lease_expires_at < ?)
             ORDER BY next_attempt_at LIMIT ?${tx.dialect.forUpdateSkipLocked}
           ) RETURNING id, attempts`,
          [input.owner, input.leaseUntil, input.now, input.now, input.limit],
        );
        if (taken.length === 0) return [];
        const rows = await tx.all<{ id: string; event_id: string; endpoint_id: string; url: string; payload: string } & Pick<EndpointRow, 'secret' | 'previous_secret' | 'previous_secret_expires_at'>>(
          `SELECT d.id, d.event_id, d.endpoint_id, p.url, e.payload, p.secret, p.previous_secret, p.previous_secret_expires_at
           FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id JOIN webhook_endpoints p ON p.id = d.endpoint_id
           WHERE d.id ${tx.dialect.inList}`,
          [list(taken.map((t) => t.id))],
        );
        const attempts = new Map(taken.map((t) => [t.id, Number(t.attempts)]));
        return rows.map(
          (r): ClaimedDelivery => ({
            id: r.id,
            eventId: r.event_id,
            endpointId: r.endpoint_id,
            url: r.url,
            payload: r.payload,
            secrets: {
              current: r.secret,
              // The secret before a rotation signs beside the new one until its grace period ends.
              previous: r.previous_secret !== null && r.previous_secret_expires_at !== null && Date.parse(r.previous_secret_expires_at) > input.now.getTime() ? r.previous_secret : null,
            },
            attempts: (attempts.get(r.id) ?? 1) - 1,
          }),
        );
      }),

    recordOutcome: (input) =>
      db.write(async (tx) => {
        const { outcome } = input;
        const common = [input.now, outcome.status];
        let changed: number;
        if (outcome.kind === 'delivered') {
          changed = await tx.run(
            `UPDATE webhook_deliveries SET state = 'delivered', last_attempt_at = ?, last_status = ?, last_error = NULL, delivered_at = ?, next_attempt_at = NULL,
               lease_owner = NULL, lease_expires_at = NULL WHERE id = ? AND state = 'sending' AND lease_owner = ?`,
            [...common, input.now, input.deliveryId, input.owner],
          );
        } else {
          const error = outcome.kind === 'gone' ? 'the endpoint answered 410 Gone: it is disabled' : outcome.error.slice(0, MAX_ERROR);
          const retryAt = outcome.kind === 'retry' ? outcome.retryAt : null;
          changed = await tx.run(
            `UPDATE webhook_deliveries SET state = ?, last_attempt_at = ?, last_status = ?, last_error = ?, next_attempt_at = ?, lease_owner = NULL, lease_expires_at = NULL
             WHERE id = ? AND state = 'sending' AND lease_owner = ?`,
            [retryAt ? 'pending' : 'failed', ...common, error, retryAt, input.deliveryId, input.owner],
          );
        }
        if (changed === 0) return false;
        if (outcome.kind === 'gone') {
          // Standard Webhooks: 410 means the receiver wants no more; its other pending deliveries end too.
          const endpoint = await tx.get<{ endpoint_id: string }>('SELECT endpoint_id FROM webhook_deliveries WHERE id = ?', [input.deliveryId]);
          if (endpoint) {
            await tx.run('UPDATE webhook_endpoints SET disabled_at = ?, disabled_reason = ? WHERE id = ? AND disabled_at IS NULL', [
              input.now,
              'answered 410 Gone',
              endpoint.endpoint_id,
            ]);
            await tx.run(
              "UPDATE webhook_deliveries SET state = 'failed', next_attempt_at = NULL, last_error = COALESCE(last_error, 'the endpoint is disabled') WHERE endpoint_id = ? AND state = 'pending'",
              [endpoint.endpoint_id],
            );
          }
        }
        return true;
      }),

    deliveries: async (accountId, endpointId, limit) =>
      (
        await db.all<DeliveryRow>(
          `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id JOIN webhook_endpoints p ON p.id = d.endpoint_id
           WHERE d.endpoint_id = ? AND p.account_id = ? ORDER BY d.created_at DESC, d.id DESC LIMIT ?`,
          [endpointId, accountId, limit],
        )
      ).map(toDelivery),

    resend: (input) =>
      db.write(async (tx) => {
        const changed = await tx.run(
          `UPDATE webhook_deliveries SET state = 'pending', attempts = 0, next_attempt_at = ? WHERE id = ? AND state IN ('delivered', 'failed')
             AND endpoint_id IN (SELECT id FROM webhook_endpoints WHERE account_id = ? AND disabled_at IS NULL)`,
          [input.now, input.deliveryId, input.accountId],
        );
        return changed === 0 ? null : deliveryOf(tx, input.deliveryId);
      }),

    purgeFinished: (before) =>
      db.write(async (tx) => {
        const unfinished = "SELECT 1 FROM webhook_deliveries u WHERE u.event_id = webhook_events.id AND u.state IN ('pending', 'sending')";
        await tx.run(`DELETE FROM webhook_deliveries WHERE event_id IN (SELECT id FROM webhook_events WHERE created_at < ? AND NOT EXISTS (${unfinished}))`, [before]);
        return tx.run('DELETE FROM webhook_events WHERE created_at < ? AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = webhook_events.id)', [before]);
      }),
  };
}
