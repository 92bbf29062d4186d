/**
 * get_job: GET /v1/requests/{id}. Free and read-only: the state, progress flags and counters
 * of a job started with verify_batch.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { BatchRequest, PresendClient } from '../../client/index.js';
import { getJobOutput, jobIdSchema } from '../schemas.js';
import { errorResult, toolSuccess } from '../tool-result.js';

const DESCRIPTION = `Check a verification job started with verify_batch: state (queued, running, completed, failed), progress flags and counters (pending, completed, rechecking, credits held/debited/released). Free and read-only; safe to repeat.

Poll every few seconds (longer for big jobs) until state is completed or failed. finalized=true means the results are complete; read them with get_results. A failed job has error_code set and only partial results.`;

function nextStep(batch: BatchRequest): string {
  const { state, finalized, id } = { ...batch.request };
  if (finalized) return `Complete. Read the results with get_results (job_id "${id}"), following next_cursor until complete is true.`;
  if (state === 'failed') return `The job failed (${batch.request.errorCode ?? 'no code'}); get_results returns what finished, which is not the complete collection.`;
  return `Still ${state}: call get_job again in a few seconds. Do not call verify_batch again.`;
}

export function registerGetJob(server: McpServer, client: PresendClient): void {
  server.registerTool(
    'get_job',
    {
      title: 'Check a verification job',
      description: DESCRIPTION,
      inputSchema: { job_id: jobIdSchema },
      outputSchema: getJobOutput,
      annotations: { title: 'Check a verification job', readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    },
    async ({ job_id }) => {
      try {
        const batch = await client.getRequest(job_id);
        const { request, counters } = batch;
        const structured = {
          job_id: request.id,
          mode: request.mode,
          state: request.state,
          finalized: request.finalized,
          partial: request.partial,
          counts_may_change: request.countsMayChange,
          error_code: request.errorCode ?? null,
          created_at: request.createdAt,
          retention_expires_at: request.retentionExpiresAt ?? null,
          finalization: (request.finalization ?? null) as Record<string, unknown> | null,
          counters,
          request_id: batch.requestId,
          next_step: nextStep(batch),
        };
        const done = (counters.completed ?? 0) + (counters.failed ?? 0);
        return toolSuccess(`Job ${request.id}: ${request.state}, ${done}/${counters.unique ?? '?'} done. ${structured.next_step}`, structured);
      } catch (error) {
        return errorResult(error);
      }
    },
  );
}
