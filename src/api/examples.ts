/**
 * Examples for the OpenAPI document, one or more per request body and response of each route.
 * They are written the way a live server answers (docs/design.md §4–§5), and test/api/openapi.test.ts
 * checks each against the schema it illustrates, so an example cannot drift from the contract.
 */
import type { RouteName } from './errors.js';
import { pendingEnvelope } from '../service/checks/envelopes.js';

export interface Example {
  summary: string;
  value: unknown;
}

const REQUEST_ID = '01J9Z3K8Q4W6V2N5T7R1M0XAB3';
const BATCH_ID = '0193a4c2-5b7e-7d21-9f3a-6c1e2d4b8a90';
const CHECKED_AT = '2026-03-02T09:14:07.412Z';

const deliverableEnvelope = {
  contract_version: 1,
  status: 'completed',
  outcome: 'actionable_verdict',
  decision: 'send',
  verdict: 'DELIVERABLE',
  provider_family: 'google',
  confidence: 0.97,
  reasons: ['smtp_rcpt_accepted'],
  evidence_class: 'smtp_rcpt',
  retry: null,
  billing: { disposition: 'debited', credits: 1 },
  history: {
    checks: 2,
    firstCheckedAt: '2026-01-20T16:02:51.006Z',
    lastCheckedAt: CHECKED_AT,
    lastVerdict: 'DELIVERABLE',
    lastHardBounce: null,
    softBounces: null,
    lastDelivery: { at: '2026-02-01T09:12:00.000Z', source: 'ses' },
    complaints: null,
  },
} as const;

const noMailboxEnvelope = {
  contract_version: 1,
  status: 'completed',
  outcome: 'actionable_verdict',
  decision: 'suppress',
  verdict: 'UNDELIVERABLE_NO_MAILBOX',
  provider_family: 'microsoft',
  confidence: 0.97,
  reasons: ['mailbox_not_found'],
  evidence_class: 'smtp_rcpt',
  retry: null,
  billing: { disposition: 'debited', credits: 1 },
  history: null,
} as const;

const runningRequest = {
  request: {
    id: BATCH_ID,
    mode: 'emails',
    state: 'running',
    errorCode: null,
    retentionExpiresAt: null,
    createdAt: '2026-03-02T09:14:02.118Z',
    partial: true,
    finalized: false,
    countsMayChange: true,
    finalization: null,
  },
  counters: {
    total: 3,
    unique: 3,
    duplicates: 0,
    pending: 1,
    completed: 2,
    failed: 0,
    rechecking: 1,
    send: 1,
    suppress: 1,
    sendWithCaution: 0,
    enrichFirst: 0,
    recheckLater: 0,
    manualReview: 0,
    doNotDecide: 0,
    creditsHeld: 1,
    creditsDebited: 2,
    creditsReleased: 0,
  },
  requestId: REQUEST_ID,
};

const completedRequest = {
  ...runningRequest,
  request: {
    ...runningRequest.request,
    state: 'completed',
    retentionExpiresAt: '2026-04-01T09:19:09.870Z',
    partial: false,
    finalized: true,
    countsMayChange: false,
    finalization: { finalizedAt: '2026-03-02T09:19:09.870Z', outcome: 'completed', results: 3, creditsDebited: 2, creditsReleased: 1 },
  },
  counters: { ...runningRequest.counters, pending: 0, completed: 3, rechecking: 0, recheckLater: 1, creditsHeld: 0, creditsReleased: 1 },
};

/** Request body examples by route. */
export const REQUEST_EXAMPLES: Partial<Record<RouteName, Record<string, Example>>> = {
  'POST /v1/verify': { address: { summary: 'One address, waiting up to 10 s', value: { email: 'jane.doe@example.com', timeoutMs: 10000 } } },
  'POST /v1/requests': {
    emails: { summary: 'Addresses in the body', value: { emails: ['jane.doe@example.com', 'no-such-user@example.org', 'sales@example.net'] } },
    list: { summary: 'A stored list', value: { listId: '0193a4b9-0c61-7f0e-8e2d-3b7a5c9d1e24' } },
  },
};

/** Success response examples by route and status. */
export const RESPONSE_EXAMPLES: Record<RouteName, Record<number, Record<string, Example>>> = {
  'POST /v1/verify': {
    200: {
      deliverable: {
        summary: 'Deliverable: send',
        value: {
          status: 'completed',
          presend: deliverableEnvelope,
          requestId: REQUEST_ID,
          decision: { result: 'deliverable', reason: 'smtp_rcpt_accepted', didYouMean: null },
          engine: { verifiedAt: CHECKED_AT, attempts: 1, providerFamily: 'google' },
        },
      },
      noMailbox: {
        summary: 'No such mailbox: suppress',
        value: {
          status: 'completed',
          presend: noMailboxEnvelope,
          requestId: REQUEST_ID,
          decision: { result: 'undeliverable', reason: 'mailbox_not_found', didYouMean: null },
          engine: { verifiedAt: CHECKED_AT, attempts: 1, providerFamily: 'microsoft' },
        },
      },
    },
    202: {
      pending: {
        summary: 'The wait ended first: no decision yet',
        value: { status: 'running', presend: pendingEnvelope(), requestId: REQUEST_ID, decision: null, engineJobId: '0193a4c2-61f0-7a4d-b2c8-9e0f1a3d5c77' },
      },
    },
  },
  'POST /v1/requests': {
    202: { created: { summary: 'Created', value: { ...runningRequest, request: { ...runningRequest.request, state: 'queued' }, counters: { ...runningRequest.counters, pending: 3, completed: 0, rechecking: 0, send: 0, suppress: 0, creditsHeld: 3, creditsDebited: 0 } } } },
    200: { replay: { summary: 'Idempotent replay of the same body', value: { ...runningRequest, replayed: true } } },
  },
  'GET /v1/requests/{id}': {
    200: { running: { summary: 'Running, one greylisted address waiting for its recheck', value: runningRequest }, completed: { summary: 'Completed', value: completedRequest } },
  },
  'GET /v1/requests/{id}/results': {
    200: {
      page: {
        summary: 'A page while the batch runs (the greylisted address is not final yet)',
        value: {
          jobId: BATCH_ID,
          results: [
            { email: 'jane.doe@example.com', checkedAt: CHECKED_AT, state: 'completed', score: 97, subStatus: 'smtp_rcpt_accepted', reasonCodes: ['smtp_rcpt_accepted'], decision: { result: 'deliverable', reason: 'smtp_rcpt_accepted', didYouMean: null }, presend: deliverableEnvelope },
            { email: 'no-such-user@example.org', checkedAt: CHECKED_AT, state: 'completed', score: 3, subStatus: 'mailbox_not_found', reasonCodes: ['mailbox_not_found'], decision: { result: 'undeliverable', reason: 'mailbox_not_found', didYouMean: null }, presend: noMailboxEnvelope },
          ],
          limit: 50,
          offset: 0,
          nextCursor: 'eyJyIjoiMDE5M2E0YzItNWI3ZS03ZDIxLTlmM2EtNmMxZTJkNGI4YTkwIiwicyI6Mn0',
          partial: true,
          finalized: false,
          countsMayChange: true,
          requestId: REQUEST_ID,
        },
      },
    },
  },
};

/** An error body as the server sends it. */
export function errorExample(code: string, message: string): Example {
  return { summary: code, value: { error: { code, message, requestId: REQUEST_ID } } };
}
