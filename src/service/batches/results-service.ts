/**
 * Status and results of a batch (docs/design.md §4). Results are ordered by the moment each item
 * became final (its final sequence number); a cursor is the opaque position after the last
 * item returned, so a full export of a running batch never repeats or skips an item.
 */
import type { BatchRequestView, ResultRow } from '../../store/roles/batches/batch-records.js';
import type { RequestState } from '../../store/batch-request.js';
import type { BatchesRole } from '../../store/roles/batches/batches.js';

export const DEFAULT_PAGE = 50;
export const MAX_PAGE = 200;

export interface Flags {
  finalized: boolean;
  partial: boolean;
  countsMayChange: boolean;
}

export function flagsOf(state: RequestState): Flags {
  if (state === 'completed') return { finalized: true, partial: false, countsMayChange: false };
  if (state === 'failed') return { finalized: false, partial: true, countsMayChange: false };
  return { finalized: false, partial: true, countsMayChange: true };
}

interface CursorBody {
  r: string;
  s: number;
}

export function encodeCursor(requestId: string, seq: number): string {
  return Buffer.from(JSON.stringify({ r: requestId, s: seq } satisfies CursorBody)).toString('base64url');
}

/** The position a cursor names, or null when it was not issued for this request. */
export function decodeCursor(cursor: string, requestId: string): number | null {
  try {
    const body = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as Partial<CursorBody>;
    if (body.r !== requestId || typeof body.s !== 'number' || !Number.isSafeInteger(body.s) || body.s < 0) return null;
    if (encodeCursor(requestId, body.s) !== cursor) return null; // only the exact form we issue
    return body.s;
  } catch {
    return null;
  }
}

/** A limit outside 1–200 is clamped into it; anything unparseable is the default (docs/design.md §4). */
export function clampLimit(raw: unknown): number {
  const n = typeof raw === 'string' && /^-?\d+$/.test(raw.trim()) ? Number(raw) : NaN;
  if (Number.isNaN(n)) return DEFAULT_PAGE;
  return Math.min(MAX_PAGE, Math.max(1, n));
}

/** A malformed offset counts as 0. */
export function parseOffset(raw: unknown): number {
  return typeof raw === 'string' && /^\d+$/.test(raw.trim()) ? Math.min(Number(raw), Number.MAX_SAFE_INTEGER) : 0;
}

export type PageOutcome =
  | {
      kind: 'page';
      request: BatchRequestView;
      rows: ResultRow[];
      limit: number;
      offset: number;
      nextCursor: string | null;
      flags: Flags;
    }
  | { kind: 'request_not_found' }
  | { kind: 'cursor_not_found' };

/** The view with `nextRecheckInSeconds` among its counters while a recheck waits. */
export function withNextRecheck(view: BatchRequestView, now: Date): BatchRequestView {
  if (view.nextRecheckAt === null) return view;
  const seconds = Math.max(0, Math.ceil((Date.parse(view.nextRecheckAt) - now.getTime()) / 1000));
  return { ...view, counters: { ...view.counters, nextRecheckInSeconds: seconds } };
}

export class ResultsService {
  constructor(
    private readonly batches: BatchesRole,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async status(accountId: string, requestId: string): Promise<BatchRequestView | null> {
    const view = await this.batches.get(accountId, requestId);
    return view && withNextRecheck(view, this.now());
  }

  async page(accountId: string, requestId: string, query: { limit?: unknown; cursor?: unknown; offset?: unknown }): Promise<PageOutcome> {
    const limit = clampLimit(query.limit);
    let after = 0;
    let cursorSeq: number | null = null;
    if (query.cursor !== undefined) {
      // Cursor wins over offset (docs/design.md §4). A repeated `cursor` (an array) names no position
      // this request issued: it is refused, never read as "no cursor" (which restarts at 0).
      cursorSeq = typeof query.cursor === 'string' ? decodeCursor(query.cursor, requestId) : null;
      if (cursorSeq === null) return { kind: 'cursor_not_found' };
      after = cursorSeq;
    } else {
      after = parseOffset(query.offset);
    }
    const slice = await this.batches.resultsSlice({ accountId, requestId, afterSeq: after, limit });
    if (!slice) return { kind: 'request_not_found' };
    // A cursor past everything final was never issued for this request.
    if (cursorSeq !== null && cursorSeq > slice.finalCount) return { kind: 'cursor_not_found' };
    const flags = flagsOf(slice.request.state);
    const last = slice.rows.at(-1);
    let nextCursor: string | null = null;
    if (last) {
      const nothingFollows = flags.finalized && last.finalSeq >= slice.finalCount;
      nextCursor = nothingFollows ? null : encodeCursor(requestId, last.finalSeq);
    }
    return { kind: 'page', request: slice.request, rows: slice.rows, limit, offset: after, nextCursor, flags };
  }
}
