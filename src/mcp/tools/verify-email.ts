/**
 * verify_email: POST /v1/verify for one address. Spends (1 credit for an actionable
 * verdict), so it is not read-only and not idempotent; the client retries a lost exchange
 * only with the same Idempotency-Key, never as a new verification.
 */
import { randomUUID } from 'node:crypto';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { PresendClient } from '../../client/index.js';
import { idempotencyKeySchema, verifyEmailOutput } from '../schemas.js';
import { errorResult, toolSuccess } from '../tool-result.js';

const DESCRIPTION = `Verify ONE email address before sending to it; answers with a pre-send envelope: decision (send, suppress, send_with_caution, enrich_first, recheck_later, manual_review, do_not_decide), verdict, confidence and reasons.

Cost: 1 credit when the answer is an actionable verdict (e.g. DELIVERABLE, UNDELIVERABLE_*); unknown, transient, greylisted and other non-verdict answers are free (billing.credits says what was charged).

If pending is true (HTTP 202), the check did not finish within the wait: there is NO verdict yet and no route to poll a single check. Do NOT call verify_email again as a new check. To see it as it stands now, call verify_email again with the same email, the same timeout_ms and the returned idempotency_key (a replay, billed at most once). For a result you can poll, use verify_batch and get_job instead.

A null decision is NOT permission to send. For more than a few addresses use verify_batch.`;

export function registerVerifyEmail(server: McpServer, client: PresendClient): void {
  server.registerTool(
    'verify_email',
    {
      title: 'Verify one email address',
      description: DESCRIPTION,
      inputSchema: {
        email: z.string().min(1).max(320).describe('The address to check, e.g. jane@example.com'),
        timeout_ms: z.number().int().min(1).max(120_000).optional().describe('Bound on the wait in ms (1–120000; the service default is used when omitted). Keep it below your own tool-call timeout (often 60 s). Does not change the quality of the check'),
        idempotency_key: idempotencyKeySchema.optional(),
      },
      outputSchema: verifyEmailOutput,
      annotations: { title: 'Verify one email address', readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    },
    async ({ email, timeout_ms, idempotency_key }) => {
      const key = idempotency_key ?? randomUUID();
      try {
        const result = await client.verify({ email, ...(timeout_ms !== undefined ? { timeoutMs: timeout_ms } : {}) }, { idempotencyKey: key });
        const pending = result.status !== 'completed';
        const envelope = result.presend;
        const next_step = pending
          ? `No verdict yet (engine job ${result.engineJobId ?? 'unknown'}, request ${result.requestId}). Do not resubmit as a new check and do not send on this answer. To look again, call verify_email with the same email${timeout_ms !== undefined ? ` and timeout_ms ${timeout_ms}` : ''} and idempotency_key "${key}".`
          : envelope.decision === null
            ? 'No decision: this is not permission to send.'
            : `Recommended action: ${envelope.decision}.`;
        const structured = {
          email,
          status: result.status,
          pending,
          presend: envelope,
          did_you_mean: result.decision?.didYouMean ?? null,
          engine: result.engine ?? null,
          engine_job_id: result.engineJobId ?? null,
          request_id: result.requestId,
          idempotency_key: key,
          next_step,
        };
        const summary = pending
          ? `${email}: pending (no verdict yet). ${next_step}`
          : `${email}: ${envelope.verdict ?? 'no verdict'} → ${envelope.decision ?? 'no decision'} (${envelope.billing.credits} credit${envelope.billing.credits === 1 ? '' : 's'} ${envelope.billing.disposition})`;
        return toolSuccess(summary, structured);
      } catch (error) {
        return errorResult(
          error,
          `The answer was lost; the check may have run. Do not start a new check: call verify_email again with the same email${timeout_ms !== undefined ? ` and timeout_ms ${timeout_ms}` : ''} and idempotency_key "${key}" to get the original answer without paying twice.`,
        );
      }
    },
  );
}
