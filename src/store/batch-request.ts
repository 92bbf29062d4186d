/**
 * What a batch request is, shared by the roles that write or read one (batches, list batches,
 * account views, webhook events): its mode and state, its new items, its counters and its
 * finalization.
 */
import type { PreSendDecision } from '../core/types.js';
import type { StoredResult } from './stored-result.js';

export type RequestMode = 'emails' | 'list';

export type RequestState = 'queued' | 'running' | 'completed' | 'failed';

export interface NewBatchItem {
  /** Normalised address (domain lower-cased + IDNA); unique within the request. */
  email: string;
  domain: string;
  /** Set for an address that is final at creation (syntax-invalid list entry → `rejected`). */
  finalResult?: StoredResult;
}

export interface Finalization {
  finalizedAt: string;
  outcome: 'completed' | 'failed';
  results: number;
  creditsDebited: number;
  creditsReleased: number;
}

/** Counter keys of docs/design.md §4. pending + rechecking + completed + failed = unique. */
export interface Counters {
  total: number;
  unique: number;
  duplicates: number;
  pending: number;
  completed: number;
  failed: number;
  rechecking: number;
  send: number;
  suppress: number;
  sendWithCaution: number;
  enrichFirst: number;
  recheckLater: number;
  manualReview: number;
  doNotDecide: number;
  creditsHeld: number;
  creditsDebited: number;
  creditsReleased: number;
  /**
   * Seconds until the earliest greylisting recheck is due, present only while `rechecking` > 0
   * (0 when it is due now): how long a caller's progress will stand still. Added to the design's
   * counters for the "until when" of rechecks; its value is an integer ≥ 0 like every counter.
   */
  nextRecheckInSeconds?: number;
}

/** Decision → counter key (docs/design.md §4). */
export const DECISION_COUNTER: Record<PreSendDecision, keyof Counters> = {
  send: 'send',
  suppress: 'suppress',
  send_with_caution: 'sendWithCaution',
  enrich_first: 'enrichFirst',
  recheck_later: 'recheckLater',
  manual_review: 'manualReview',
  do_not_decide: 'doNotDecide',
};

