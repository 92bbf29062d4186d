/**
 * How a failed caller command speaks: one readable line on stderr (plus a JSON object on
 * stderr with --json, for scripts), and the exit code of exit-codes.ts. The API key is never
 * part of any of it: the messages come from the service and the client, which never echo it,
 * and `redact` removes it anyway in case a proxy or a misconfigured base URL reflects it.
 */
import { IncompleteExportError, PresendApiError, PresendNetworkError, PresendResponseError } from '../../client/index.js';
import { exitCodeFor, type ExitCode } from './exit-codes.js';

export function redact(text: string, secret: string | null): string {
  return secret ? text.split(secret).join('[redacted]') : text;
}

function describe(error: unknown): { line: string; json: Record<string, unknown> } {
  if (error instanceof PresendApiError) {
    const hint = hintFor(error.status, error.code);
    return {
      line: `error: ${error.message} (${error.code}, HTTP ${error.status}${error.requestId ? `, correlation id ${error.requestId}` : ''})${hint ? `\n${hint}` : ''}`,
      json: { code: error.code, message: error.message, status: error.status, requestId: error.requestId, retryAfterSeconds: error.retryAfterSeconds },
    };
  }
  if (error instanceof PresendResponseError) {
    return {
      line: `error: ${error.message}`,
      json: { code: 'invalid_response', message: error.message, status: error.status, requestId: error.requestId },
    };
  }
  if (error instanceof IncompleteExportError) {
    return {
      line: `error: ${error.message} (${error.itemsReceived} items received)`,
      json: { code: 'incomplete_export', reason: error.reason, message: error.message, itemsReceived: error.itemsReceived, lastCursor: error.lastCursor },
    };
  }
  if (error instanceof PresendNetworkError) {
    return { line: `error: ${error.message}`, json: { code: 'network_error', message: error.message, idempotencyKey: error.idempotencyKey } };
  }
  const message = error instanceof Error ? error.message : String(error);
  return { line: `error: ${message}`, json: { code: 'error', message } };
}

function hintFor(status: number, code: string): string | null {
  if (status === 401) return 'Check the key: set PRESEND_API_KEY or pass --api-key (keys look like ps_live.… or ps_test.…).';
  if (status === 402) return 'The account has too few credits for this; ask the operator for a grant (presend credits grant).';
  if (code === 'too_much_outstanding_work') return "Still refused after retrying: the account's open batches must progress first (presend job ID shows one); then run the command again.";
  if (status === 429) return 'Still rate limited after retrying; try again later.';
  if (status === 503) return 'The service or its store is unavailable; try again later (a retried command replays, it never charges twice).';
  return null;
}

/** Prints the error and returns the exit code to set. */
export function reportError(error: unknown, options: { json: boolean; apiKey: string | null }): ExitCode {
  const { line, json } = describe(error);
  process.stderr.write(redact(line, options.apiKey) + '\n');
  if (options.json) process.stderr.write(redact(JSON.stringify({ error: json }), options.apiKey) + '\n');
  return exitCodeFor(error);
}
