/**
 * The records of signed webhooks (docs/webhooks.md): an account's endpoints, the events the store
 * writes beside the change they announce, and their deliveries. Plain data, the same on every
 * dialect. The payloads are built here because the store writes them in the transaction of the
 * change (the outbox), and each attempt sends exactly the bytes written then.
 */
import type { Counters, Finalization } from '../../batch-request.js';
import type { StoredResult } from '../../stored-result.js';

/** The event types an endpoint may subscribe to. */
export const WEBHOOK_EVENT_TYPES = ['batch.completed', 'batch.failed', 'verification.completed', 'verification.failed'] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

export const isWebhookEventType = (text: string): text is WebhookEventType => (WEBHOOK_EVENT_TYPES as readonly string[]).includes(text);

export interface WebhookEndpoint {
  id: string;
  accountId: string;
  url: string;
  events: WebhookEventType[];
  description: string | null;
  createdAt: string;
  /** Set when the endpoint answered 410 Gone (or its owner disabled it): nothing is sent to it. */
  disabledAt: string | null;
  disabledReason: string | null;
  /** Until when the secret before the last rotation still signs beside the current one; null when none does. */
  previousSecretExpiresAt: string | null;
}

/** What signing needs: the current secret and, during a rotation's grace period, the one before. */
export interface WebhookSecrets {
  current: string;
  previous: string | null;
}

export type WebhookDeliveryState = 'pending' | 'sending' | 'delivered' | 'failed';

/** One event on its way to one endpoint, as the delivery log shows it. */
export interface WebhookDelivery {
  id: string;
  eventId: string;
  endpointId: string;
  eventType: WebhookEventType;
  state: WebhookDeliveryState;
  attempts: number;
  nextAttemptAt: string | null;
  lastAttemptAt: string | null;
  /** The HTTP status of the last answer; null when there was none (refused, timed out, unreachable). */
  lastStatus: number | null;
  lastError: string | null;
  deliveredAt: string | null;
  createdAt: string;
}

/** A delivery a sender holds under a lease: everything one attempt needs. */
export interface ClaimedDelivery {
  id: string;
  eventId: string;
  endpointId: string;
  url: string;
  payload: string;
  secrets: WebhookSecrets;
  /** Attempts made before this one. */
  attempts: number;
}

/** How one attempt ended, as the sender reports it to the store. */
export type DeliveryOutcome =
  | { kind: 'delivered'; status: number }
  /** Try again at `retryAt`, or give up (`retryAt` null: the schedule is exhausted). */
  | { kind: 'retry'; status: number | null; error: string; retryAt: Date | null }
  /** 410 Gone: the endpoint is disabled and its pending deliveries end failed. */
  | { kind: 'gone'; status: number };

/** The thin payload of `batch.completed` / `batch.failed`: ids, counters, links to read the results. */
export function batchEventPayload(input: {
  type: 'batch.completed' | 'batch.failed';
  requestId: string;
  mode: string;
  sandbox: boolean;
  errorCode: string | null;
  finalization: Finalization;
  counters: Pick<Counters, 'total' | 'unique' | 'completed' | 'failed'>;
}): string {
  return JSON.stringify({
    type: input.type,
    timestamp: input.finalization.finalizedAt,
    data: {
      requestId: input.requestId,
      mode: input.mode,
      sandbox: input.sandbox,
      state: input.finalization.outcome,
      errorCode: input.errorCode,
      finalization: input.finalization,
      counters: input.counters,
      // Relative to the service's base URL: the event names what to read, the caller's key reads it.
      links: { request: `/v1/requests/${input.requestId}`, results: `/v1/requests/${input.requestId}/results` },
    },
  });
}

/** What both events of a single check say of it: which check, for which caller, and when. */
interface CheckEventInput {
  engineJobId: string;
  requestId: string | null;
  email: string;
  sandbox: boolean;
  at: Date;
}

/** The keys `verification.completed` and `verification.failed` share, first in their `data`, in this order. */
function checkEventKeys(input: CheckEventInput): { engineJobId: string; requestId: string | null; email: string; sandbox: boolean } {
  return { engineJobId: input.engineJobId, requestId: input.requestId, email: input.email, sandbox: input.sandbox };
}

/**
 * The payload of `verification.completed` for a check answered 202: keyed by the `engineJobId`
 * and `requestId` the 202 carried (the first 202's, when it was replayed), with the final result
 * in the shape a 200 of `POST /v1/verify` has.
 */
export function verificationEventPayload(input: CheckEventInput & { result: StoredResult }): string {
  const r = input.result;
  return JSON.stringify({
    type: 'verification.completed',
    timestamp: input.at.toISOString(),
    data: {
      ...checkEventKeys(input),
      status: 'completed',
      presend: r.envelope,
      decision: r.legacy,
      engine: { verifiedAt: r.checkedAt, attempts: r.attempts, providerFamily: r.providerFamily },
    },
  });
}

/**
 * The payload of `verification.failed` for a check answered 202 that ended failed (the engine or the
 * store could not finish it; nothing billed): the same keys as `verification.completed`, the state
 * and the error a replay of the 202 now answers (502 `engine_unavailable`), and no envelope — a
 * failed check has none, as `batch.failed` carries an `errorCode` and no results.
 */
export function verificationFailedPayload(input: CheckEventInput): string {
  return JSON.stringify({
    type: 'verification.failed',
    timestamp: input.at.toISOString(),
    data: {
      ...checkEventKeys(input),
      status: 'failed',
      errorCode: 'engine_unavailable',
    },
  });
}
