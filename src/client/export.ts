/**
 * Full export of a batch's results (docs/interface-spec.md §4 "Full export", docs/design.md §4
 * "cursors"): follow `nextCursor` until it is null on a finalized request. While the request
 * is still running, an empty tail page has `nextCursor: null` and the export asks again
 * later with the cursor it sent. Anything that would make the collection unprovable — a
 * cursor seen twice, a page without `nextCursor`, a malformed page, an item seen twice, or a
 * request that stopped without being finalized — ends the export with IncompleteExportError.
 */
import type { PageOptions } from './call-options.js';
import { IncompleteExportError, PresendResponseError, type IncompleteExportReason } from './errors.js';
import { PollInterval } from './pacing.js';
import { MISSING_NEXT_CURSOR } from './validate.js';
import type { ResultItem, ResultsPage } from './types.js';

export interface ExportProgress {
  /** Items yielded so far. */
  received: number;
  /** Pages read so far (empty tail pages included). */
  pages: number;
  /** The last page's flags. */
  finalized: boolean;
  partial: boolean;
}

export interface ExportOptions {
  /** Page size, 1–200. Default 200 (fewest round trips). */
  limit?: number;
  /** Resume after this cursor instead of starting from the first result. */
  cursor?: string;
  /** Wait before re-asking at the tail of a running batch; grows to 5 s. Default 1 s. */
  pollIntervalMs?: number;
  onProgress?: (progress: ExportProgress) => void;
  signal?: AbortSignal;
}

interface ResultsReader {
  getResults(id: string, options?: PageOptions): Promise<ResultsPage>;
}

/** The identity of an item: one item per unique address (docs/design.md §4 batch duplicates). */
function itemKey(item: ResultItem, page: ResultsPage, index: number): string {
  return item.email ?? `${page.offset + index}`;
}

export async function* exportResults(
  client: ResultsReader,
  id: string,
  options: ExportOptions = {},
): AsyncGenerator<ResultItem, void, undefined> {
  const limit = options.limit ?? 200;
  const interval = new PollInterval(options.pollIntervalMs ?? 1_000, 5_000);
  const followed = new Set<string>();
  const seen = new Set<string>();
  let cursor = options.cursor;
  if (cursor !== undefined) followed.add(cursor);
  let received = 0;
  let pages = 0;

  const stop = (reason: IncompleteExportReason, message: string, cause?: unknown): IncompleteExportError =>
    new IncompleteExportError(reason, `export of ${id} is incomplete: ${message}`, received, cursor ?? null, cause === undefined ? undefined : { cause });

  for (;;) {
    let page: ResultsPage;
    try {
      page = await client.getResults(id, { limit, ...(cursor !== undefined ? { cursor } : {}), ...(options.signal ? { signal: options.signal } : {}) });
    } catch (error) {
      // A broken page is the spec's "invalid JSON" sign; API errors (404, 429 after retries) pass through.
      if (error instanceof PresendResponseError) {
        const reason = error.message.endsWith(MISSING_NEXT_CURSOR) ? 'missing_next_cursor' : 'invalid_page';
        throw stop(reason, error.message, error);
      }
      throw error;
    }
    pages += 1;
    if (page.jobId.toLowerCase() !== id.toLowerCase()) throw stop('invalid_page', `a page of ${page.jobId} came back for ${id}`);

    for (const [index, item] of page.results.entries()) {
      const key = itemKey(item, page, index);
      if (seen.has(key)) throw stop('duplicate_item', `${key} came back a second time`);
      seen.add(key);
      received += 1;
      yield item;
    }
    options.onProgress?.({ received, pages, finalized: page.finalized, partial: page.partial });

    if (page.nextCursor !== null) {
      if (followed.has(page.nextCursor)) throw stop('repeated_cursor', `cursor ${page.nextCursor} was returned twice`);
      followed.add(page.nextCursor);
      cursor = page.nextCursor;
      interval.reset();
      continue;
    }
    if (page.finalized) return;
    // A non-empty page always carries nextCursor unless the request is finalized; asking
    // again with the same cursor would hand the same items back.
    if (page.results.length > 0) throw stop('missing_next_cursor', 'a non-empty page of a running request has no nextCursor');
    // Not finalized and frozen: a failed request; what was read is all there will be.
    if (!page.countsMayChange) throw stop('not_finalized', 'the request stopped without being finalized (failed?)');
    await interval.wait(options.signal);
  }
}
