/**
 * Tool answers: the data once, as structured content (each tool declares its outputSchema),
 * and a short human summary as text — what happened and what to do next — rather than the
 * same JSON a second time (a 200-item get_results page was 248 KB that way, half of it
 * repeated). Failures are tool errors (`isError: true`) that carry the service's code and
 * request id — an agent can read and act on them; nothing crashes the server.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { IncompleteExportError, PresendApiError, PresendNetworkError, PresendResponseError } from '../client/index.js';

export function toolSuccess(summary: string, structured: Record<string, unknown>): CallToolResult {
  return {
    content: [{ type: 'text', text: summary }],
    structuredContent: structured,
  };
}

/** `3 send, 1 suppress, 2 no decision`: how a page or a job divides, for the text summary. */
export function countBy(values: readonly (string | null | undefined)[], none = 'no decision'): string {
  const counts = new Map<string, number>();
  for (const value of values) counts.set(value ?? none, (counts.get(value ?? none) ?? 0) + 1);
  return [...counts.entries()].map(([value, count]) => `${count} ${value}`).join(', ');
}

export interface ToolErrorDetail {
  code: string;
  message: string;
  status?: number | null;
  request_id?: string | null;
  next_step?: string;
  [extra: string]: unknown;
}

export function toolError(detail: ToolErrorDetail): CallToolResult {
  const where = [detail.status ? `HTTP ${detail.status}` : null, detail.request_id ? `request id ${detail.request_id}` : null].filter(Boolean).join(', ');
  const head = `Presend error ${detail.code}${where ? ` (${where})` : ''}: ${detail.message}`;
  return {
    content: [{ type: 'text', text: `${head}${detail.next_step ? `\n${detail.next_step}` : ''}\n${JSON.stringify({ error: detail })}` }],
    isError: true,
  };
}

const ADVICE: Record<number, string> = {
  400: 'Fix the input (the message names the problem); do not retry it unchanged.',
  401: 'The API key is missing or invalid. The server operator must set PRESEND_API_KEY; do not retry.',
  402: 'Not enough credits. Do not retry; ask a human to add credits.',
  404: 'Unknown id (or a cursor that is not valid for it). Check the id/cursor you passed.',
  422: 'Well-formed but refused (e.g. list not ready, or idempotency_key reused with a different input).',
  429: 'Rate limited even after waiting as the service asked. Wait and try later.',
  502: 'The verification engine is unavailable. Try later.',
  503: 'The service is unavailable. Try later.',
};

/**
 * Turns whatever the client threw into a tool error. `lostAnswer` explains, for calls that
 * spend, how to recover without paying twice when the answer never arrived.
 */
export function errorResult(error: unknown, lostAnswer?: string): CallToolResult {
  if (error instanceof PresendApiError) {
    return toolError({ code: error.code, message: error.message, status: error.status, request_id: error.requestId, next_step: ADVICE[error.status] ?? 'Do not retry blindly.' });
  }
  if (error instanceof PresendResponseError) {
    return toolError({ code: 'invalid_response', message: error.message, status: error.status, request_id: error.requestId, ...(lostAnswer ? { next_step: lostAnswer } : {}) });
  }
  if (error instanceof PresendNetworkError) {
    return toolError({ code: 'network_error', message: error.message, ...(lostAnswer ? { next_step: lostAnswer } : {}) });
  }
  if (error instanceof IncompleteExportError) {
    return toolError({ code: 'incomplete_export', message: error.message, reason: error.reason });
  }
  return toolError({ code: 'internal_error', message: error instanceof Error ? error.message : String(error) });
}
