/**
 * get_results: GET /v1/requests/{id}/results, one page at a time. Free and read-only. The
 * agent pages with next_cursor; `complete` tells it when the collection is whole (the last
 * page of a finalized job), the rule of docs/interface-spec.md §4 "Full export".
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { PresendClient, ResultItem } from '../../client/index.js';
import { getResultsOutput, jobIdSchema } from '../schemas.js';
import { countBy, errorResult, toolSuccess } from '../tool-result.js';

const DESCRIPTION = `Read one page of results of a job started with verify_batch. Free and read-only; safe to repeat.

Paging: call without cursor for the first page; while next_cursor is not null, call again with cursor = next_cursor. complete=true means you have every result (last page of a finalized job). If next_cursor is null but complete is false, the job is still running: wait (check get_job), then call again with the SAME cursor you last sent. Never reuse an older cursor or skip one.

Each result has a pre-send envelope: decision, verdict, confidence, reasons, billing. A null decision is NOT permission to send.`;

function itemView(item: ResultItem) {
  return {
    email: item.email ?? null,
    state: item.state ?? null,
    checked_at: item.checkedAt ?? null,
    did_you_mean: item.decision?.didYouMean ?? null,
    presend: item.presend ?? null,
  };
}

export function registerGetResults(server: McpServer, client: PresendClient): void {
  server.registerTool(
    'get_results',
    {
      title: 'Read the results of a verification job',
      description: DESCRIPTION,
      inputSchema: {
        job_id: jobIdSchema,
        limit: z.number().int().min(1).max(200).optional().describe('Page size, 1–200 (default 50)'),
        cursor: z.string().min(1).optional().describe('next_cursor from the previous page; omit for the first page'),
      },
      outputSchema: getResultsOutput,
      annotations: { title: 'Read job results', readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    },
    async ({ job_id, limit, cursor }) => {
      try {
        const page = await client.getResults(job_id, { ...(limit !== undefined ? { limit } : {}), ...(cursor !== undefined ? { cursor } : {}) });
        const complete = page.finalized && page.nextCursor === null;
        const next_step = complete
          ? 'Complete: you have every result.'
          : page.nextCursor !== null
            ? `More results: call get_results with cursor "${page.nextCursor}".`
            : page.countsMayChange
              ? `No more results yet; the job is still running. Call get_results again later with ${cursor === undefined ? 'no cursor' : `cursor "${cursor}"`}.`
              : 'The job stopped without being finalized (failed): these results are not the complete collection.';
        const structured = {
          job_id: page.jobId,
          results: page.results.map(itemView),
          next_cursor: page.nextCursor,
          finalized: page.finalized,
          partial: page.partial,
          counts_may_change: page.countsMayChange,
          complete,
          request_id: page.requestId,
          next_step,
        };
        const decisions = page.results.length > 0 ? ` (${countBy(page.results.map((item) => item.presend?.decision))})` : '';
        return toolSuccess(`${page.results.length} results for job ${page.jobId}${decisions}; each result's envelope is in the structured content. ${next_step}`, structured);
      } catch (error) {
        return errorResult(error);
      }
    },
  );
}
