/**
 * Role: batches (the records it takes and returns): a new request, its view with counters, an
 * item's result and a slice of the results.
 */
import type { PublicVerdict } from '../../../core/types.js';
import type { StoredResult } from '../../stored-result.js';
import type { IdempotencyClaim } from '../idempotency.js';
import type { LeaseGrant } from '../lease-grant.js';
import type { Counters, Finalization, NewBatchItem, RequestMode, RequestState } from '../../batch-request.js';

export interface CreateBatchInput {
  accountId: string;
  keyId: string;
  mode: RequestMode;
  listId: string | null;
  /** Addresses given, duplicates included. */
  total: number;
  /** Unique addresses, already de-duplicated by the caller (none for a batch over a list: `fillFromList`). */
  items: NewBatchItem[];
  /**
   * A batch over a stored list: created with `total` (the list's entries) and no items; its items
   * are copied from the list afterwards (ListBatchesRole), the fill leased to the creating process.
   * A live key holds one credit per entry now; those of duplicates and invalid entries are
   * released as their chunks are written.
   */
  fillFromList?: { lease: LeaseGrant };
  /** The most unfinished items the account may have with this batch's (PRESEND_ACCOUNT_MAX_OUTSTANDING); no cap when absent. */
  maxOutstanding?: number;
  /** Live keys hold one credit per unique pending item; sandbox requests hold nothing. */
  billable: boolean;
  idempotency: IdempotencyClaim;
  now: Date;
  retentionDays: number;
}

export type CreateBatchOutcome =
  | { kind: 'created'; request: BatchRequestView }
  | { kind: 'replay'; request: BatchRequestView }
  | { kind: 'idempotency_mismatch' }
  | { kind: 'insufficient_credits'; available: number; needed: number }
  | { kind: 'too_much_outstanding_work'; outstanding: number; adding: number; max: number };

export interface BatchRequestView {
  id: string;
  accountId: string;
  mode: RequestMode;
  state: RequestState;
  errorCode: string | null;
  createdAt: string;
  retentionExpiresAt: string | null;
  finalization: Finalization | null;
  sandbox: boolean;
  counters: Counters;
  /** When the earliest greylisting recheck of the request is due; null when none waits. */
  nextRecheckAt: string | null;
  /** Rechecks waiting because every egress route is paused for their provider, and when the first is due; null when none waits. */
  waitingForRoute?: { count: number; retryAt: string } | null;
}

export type ItemResultInput =
  | {
      kind: 'final';
      itemId: number;
      result: StoredResult;
      /** The engine's verdict outcome decides the billing: actionable → debit, else release. */
      now: Date;
      retentionDays: number;
    }
  | {
      /** Greylisted (or not asked): keep the hold, come back at `recheckAt` from the same worker first (affinity). */
      kind: 'recheck';
      itemId: number;
      affinity: string;
      recheckAt: Date;
      now: Date;
      /** Every egress route is paused for the address's provider (egress_paused): the dashboard says so. */
      waitsForRoute?: boolean;
    };

export interface ItemResultOutcome {
  /** False when the item was already final (a retried job): nothing changed, nothing billed. */
  recorded: boolean;
  /** True when this result finalized the whole request. */
  finalizedRequest: boolean;
  /** Billing applied to this item, for metrics. */
  debited: number;
  verdict: PublicVerdict | null;
}

export interface ResultRow extends StoredResult {
  email: string;
  /** 1-based position in finality order; the cursor encodes the last one returned. */
  finalSeq: number;
}

export interface ResultsSlice {
  request: BatchRequestView;
  rows: ResultRow[];
  /** Highest final sequence number so far (= number of final items). */
  finalCount: number;
}

