/**
 * Zod schemas for the tools' structured output. The envelope is the interface's
 * ClientDecisionEnvelopeV1 (src/api/schemas.ts); vocabularies come from src/core/types.ts, and
 * test/mcp/schemas-match-api.test.ts checks that this envelope accepts and refuses exactly what
 * the API schema does, and that every tool field accepts whatever the API may send it. Fields
 * the spec leaves open (reasons, evidence_class, provider_family) stay open here too.
 */
import { z } from 'zod';
import { BILLING_DISPOSITIONS, ENVELOPE_STATUSES, OUTCOMES, PRESEND_DECISIONS, PUBLIC_VERDICTS } from '../core/types.js';

export const envelopeSchema = z
  .object({
    contract_version: z.literal(1),
    status: z.enum(ENVELOPE_STATUSES),
    outcome: z.enum(OUTCOMES),
    decision: z.enum(PRESEND_DECISIONS).nullable().describe('Recommended action. null is NOT permission to send.'),
    verdict: z.enum(PUBLIC_VERDICTS).nullable(),
    provider_family: z.string().nullable(),
    confidence: z.number().min(0).max(1).nullable(),
    reasons: z.array(z.string()),
    evidence_class: z.string().nullable(),
    retry: z
      .object({ eligible_at: z.string().datetime({ offset: true }), expires_at: z.string().datetime({ offset: true }), affinity_required: z.boolean() })
      .strict()
      .nullable(),
    billing: z.object({ disposition: z.enum(BILLING_DISPOSITIONS), credits: z.number().int().min(0) }).strict(),
    history: z
      .object({
        checks: z.number().int().min(0),
        firstCheckedAt: z.string().datetime({ offset: true }).nullable(),
        lastCheckedAt: z.string().datetime({ offset: true }).nullable(),
        lastVerdict: z.enum(PUBLIC_VERDICTS).nullable(),
        lastHardBounce: z.object({ at: z.string().datetime({ offset: true }), source: z.string(), code: z.string().nullable() }).strict().nullable(),
        softBounces: z.object({ at: z.string().datetime({ offset: true }), source: z.string(), count: z.number().int().min(1) }).strict().nullable(),
        lastDelivery: z.object({ at: z.string().datetime({ offset: true }), source: z.string() }).strict().nullable(),
        complaints: z.object({ at: z.string().datetime({ offset: true }), source: z.string(), count: z.number().int().min(1) }).strict().nullable(),
      })
      .strict()
      .nullable(),
  })
  .strict()
  .describe('The pre-send envelope (contract_version 1)');

export const countersSchema = z
  .record(z.number().int().min(0))
  .describe(
    'total, unique, duplicates, pending, completed, failed, rechecking, one per decision, creditsHeld, creditsDebited, creditsReleased; while a greylisting recheck waits, nextRecheckInSeconds',
  );

export const jobIdSchema = z.string().uuid().describe('The job id returned by verify_batch (a UUID)');

export const idempotencyKeySchema = z
  .string()
  .min(1)
  .max(200)
  .describe(
    'Optional. Only to repeat a call whose answer was lost: pass the idempotency_key from the earlier call together with the IDENTICAL input; the service replays the original instead of spending again. Omit for a new operation.',
  );

export const verifyEmailOutput = {
  email: z.string(),
  status: z.enum(['completed', 'queued', 'running']),
  pending: z.boolean().describe('true when the bounded wait ended first (HTTP 202): no verdict yet; do not resubmit'),
  presend: envelopeSchema,
  did_you_mean: z.string().nullable(),
  engine: z.object({ verifiedAt: z.string(), attempts: z.number().int(), providerFamily: z.string() }).nullable(),
  engine_job_id: z.string().nullable(),
  request_id: z.string(),
  idempotency_key: z.string(),
  next_step: z.string(),
};

export const verifyBatchOutput = {
  job_id: z.string(),
  state: z.string(),
  replayed: z.boolean(),
  unique_addresses: z.number().int(),
  max_credits: z.number().int(),
  counters: countersSchema,
  request_id: z.string(),
  idempotency_key: z.string(),
  next_step: z.string(),
};

export const getJobOutput = {
  job_id: z.string(),
  mode: z.string(),
  state: z.string().describe('queued, running, completed or failed'),
  finalized: z.boolean().describe('true: the result collection is complete'),
  partial: z.boolean().describe('true: results so far are a progress view, not the complete collection'),
  counts_may_change: z.boolean(),
  error_code: z.string().nullable(),
  created_at: z.string(),
  retention_expires_at: z.string().nullable(),
  finalization: z.record(z.unknown()).nullable(),
  counters: countersSchema,
  request_id: z.string(),
  next_step: z.string(),
};

export const resultItemSchema = z.object({
  email: z.string().nullable(),
  state: z.string().nullable(),
  checked_at: z.string().nullable(),
  did_you_mean: z.string().nullable(),
  presend: envelopeSchema.nullable(),
});

export const getResultsOutput = {
  job_id: z.string(),
  results: z.array(resultItemSchema),
  next_cursor: z.string().nullable().describe('Pass as cursor for the next page; null means no more pages as of now'),
  finalized: z.boolean(),
  partial: z.boolean(),
  counts_may_change: z.boolean(),
  complete: z.boolean().describe('true only when this is the last page of a finalized job'),
  request_id: z.string(),
  next_step: z.string(),
};
