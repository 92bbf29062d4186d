/**
 * verify_batch: POST /v1/requests for a list of addresses, gated by `max_credits`. The gate
 * is checked before anything is sent: the service holds one credit per unique address at
 * creation, so more unique addresses than max_credits is refused here, for free.
 * Stored lists (listId) are not offered: their size is not visible through the four routes,
 * so the spending cap could not be enforced before creation.
 */
import { randomUUID } from 'node:crypto';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { planBatches, type PresendClient } from '../../client/index.js';
import { idempotencyKeySchema, verifyBatchOutput } from '../schemas.js';
import { errorResult, toolError, toolSuccess } from '../tool-result.js';

const DESCRIPTION = `Start verifying up to 10,000 email addresses asynchronously. Returns a job_id at once; results come later.

Cost: the job holds 1 credit per UNIQUE address when it starts (duplicates, and domain case, are counted once); each actionable verdict keeps its credit, unknown/non-verdict results are released (free). max_credits is required: if the unique addresses exceed it, the call is refused and nothing is created or charged.

Then: poll get_job with the job_id until state is completed (or failed); read results with get_results, passing next_cursor back as cursor until complete is true. Do not call verify_batch again to "check on" a job — that starts (and pays for) a new one. If this call's answer was lost, repeat it with the identical emails and the idempotency_key from the error message: the service returns the original job instead of creating another.

A null decision in a result is NOT permission to send.`;

export function registerVerifyBatch(server: McpServer, client: PresendClient): void {
  server.registerTool(
    'verify_batch',
    {
      title: 'Verify a batch of email addresses',
      description: DESCRIPTION,
      inputSchema: {
        emails: z.array(z.string().min(1).max(320)).min(1).max(10_000).describe('The addresses, 1 to 10,000'),
        max_credits: z.number().int().min(0).describe('The most credits this job may hold; refused (free) if the unique addresses exceed it'),
        idempotency_key: idempotencyKeySchema.optional(),
      },
      outputSchema: verifyBatchOutput,
      annotations: { title: 'Verify a batch of email addresses', readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    },
    async ({ emails, max_credits, idempotency_key }) => {
      // An agent's list often carries stray spaces, which the API refuses: the tool trims them.
      // Unique addresses are counted as the service counts them (the SDK's planBatches).
      const addresses = emails.map((email) => email.trim());
      const unique = planBatches(addresses).unique;
      if (unique > max_credits) {
        return toolError({
          code: 'max_credits_exceeded',
          message: `${unique} unique addresses would hold up to ${unique} credits, more than max_credits ${max_credits}. Nothing was created or charged.`,
          unique_addresses: unique,
          max_credits,
          next_step: `Raise max_credits to at least ${unique} (if spending that is intended) or send fewer addresses.`,
        });
      }
      const key = idempotency_key ?? randomUUID();
      try {
        const batch = await client.createRequest({ emails: addresses }, { idempotencyKey: key });
        const id = batch.request.id;
        const structured = {
          job_id: id,
          state: batch.request.state,
          replayed: batch.replayed === true,
          unique_addresses: unique,
          max_credits,
          counters: batch.counters,
          request_id: batch.requestId,
          idempotency_key: key,
          next_step: `Poll get_job with job_id "${id}" until state is completed or failed, then read get_results (follow next_cursor). Do not call verify_batch again for these addresses.`,
        };
        return toolSuccess(
          `Job ${id} ${batch.replayed ? 'replayed (no new charge)' : 'started'} for ${unique} unique address${unique === 1 ? '' : 'es'}. ${structured.next_step}`,
          structured,
        );
      } catch (error) {
        return errorResult(
          error,
          `The answer was lost; the job may have been created. Do not start a new one: call verify_batch again with the identical emails and idempotency_key "${key}" to get the original job_id without paying twice.`,
        );
      }
    },
  );
}
