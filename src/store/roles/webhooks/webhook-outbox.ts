/**
 * Role: webhooks (the outbox). An event is written inside the transaction of the change it
 * announces — a batch's finalization (finalize.ts), a 202'd check's completion
 * (verifications.ts) — with one delivery row per endpoint of the account that subscribed to its
 * type. So the change and its announcement commit together or not at all: nothing is lost between
 * them, and the senders (src/service/webhooks/webhook-sender.ts) find the rows in the store.
 */
import { randomUUID } from 'node:crypto';
import type { Tx } from '../../sql.js';
import { timeOrderedId } from '../../time-ordered-id.js';
import type { StoredResult } from '../../stored-result.js';
import { verificationEventPayload, verificationFailedPayload } from './webhook-records.js';
import type { WebhookEventType } from './webhook-records.js';

/** A message id as Standard Webhooks shows them (`msg_…`): no `.`, so `id.timestamp.body` splits one way only. */
export function newMessageId(now: Date): string {
  return `msg_${timeOrderedId(now.getTime()).replaceAll('-', '')}`;
}

/** Whether an endpoint's stored event list (comma-separated) includes `type`. */
export const subscribes = (events: string, type: string): boolean => events.split(',').includes(type);

/**
 * Writes the event and its deliveries, due now, unless no enabled endpoint of the account
 * subscribes to `type` (nothing is written then) or the event was written before: `subject`
 * (the request or check it is about) makes it once per change, however often the change is replayed.
 */
export async function enqueueWebhookEvent(tx: Tx, input: { accountId: string; type: WebhookEventType; subject: string; payload: string; now: Date }): Promise<void> {
  const endpoints = await tx.all<{ id: string; events: string }>('SELECT id, events FROM webhook_endpoints WHERE account_id = ? AND disabled_at IS NULL', [input.accountId]);
  const targets = endpoints.filter((e) => subscribes(e.events, input.type));
  if (targets.length === 0) return;
  const eventId = newMessageId(input.now);
  const added = await tx.run(
    'INSERT INTO webhook_events (id, account_id, type, subject, payload, created_at) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (type, subject) DO NOTHING',
    [eventId, input.accountId, input.type, input.subject, input.payload, input.now],
  );
  if (added === 0) return;
  for (const endpoint of targets) await insertDelivery(tx, eventId, endpoint.id, input.now);
}

/** One delivery of an event to an endpoint, due at once. */
export async function insertDelivery(tx: Tx, eventId: string, endpointId: string, now: Date): Promise<string> {
  const id = randomUUID();
  await tx.run("INSERT INTO webhook_deliveries (id, event_id, endpoint_id, state, attempts, next_attempt_at, created_at) VALUES (?, ?, ?, 'pending', 0, ?, ?)", [
    id,
    eventId,
    endpointId,
    now,
    now,
  ]);
  return id;
}

/** What the events of a single check name of it (a VerificationRecord has these, roles/verifications.ts). */
export type AnnouncedCheck = { id: string; accountId: string; email: string; billable: boolean };

/** `verification.completed` for a check whose caller was answered 202 (`requestId`: that 202's; once per check: its id is the subject). */
export async function announceAnsweredCheck(tx: Tx, check: AnnouncedCheck, requestId: string | null, result: StoredResult, now: Date): Promise<void> {
  const payload = verificationEventPayload({ engineJobId: check.id, requestId, email: check.email, sandbox: !check.billable, result, at: now });
  await enqueueWebhookEvent(tx, { accountId: check.accountId, type: 'verification.completed', subject: check.id, payload, now });
}

/** `verification.failed` for a check whose caller was answered 202 and that ended failed instead (once per check, as above). */
export async function announceFailedCheck(tx: Tx, check: AnnouncedCheck, requestId: string | null, now: Date): Promise<void> {
  const payload = verificationFailedPayload({ engineJobId: check.id, requestId, email: check.email, sandbox: !check.billable, at: now });
  await enqueueWebhookEvent(tx, { accountId: check.accountId, type: 'verification.failed', subject: check.id, payload, now });
}
