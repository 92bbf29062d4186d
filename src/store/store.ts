/**
 * The records of the lease roles still declared in src/store/backend.ts: stored lists, single
 * checks and the work queue's claims. They move beside those roles' implementations with their
 * interfaces (issue 25: after the lease primitive lands); every other role keeps its records in
 * its own file under src/store/roles/. Plain data, the same on every dialect.
 */
import type { IdempotencyClaim } from './roles/idempotency.js';
import type { StoredResult } from './stored-result.js';
import type { LeaseGrant } from './roles/leases.js';

// ---------------------------------------------------------------- lists

export type ListState = 'importing' | 'ready' | 'failed';

export interface ListRecord {
  id: string;
  accountId: string;
  name: string | null;
  state: ListState;
  entries: number;
  createdAt: string;
}

// ---------------------------------------------------------------- single verifications


export type VerificationState = 'running' | 'completed' | 'failed';

export interface VerificationRecord {
  /** Also the `engineJobId` of a 202. */
  id: string;
  accountId: string;
  email: string;
  state: VerificationState;
  billable: boolean;
  createdAt: string;
  /** Present once completed: the envelope as billed, with history filled in. */
  result: StoredResult | null;
}

export interface StartVerificationInput {
  accountId: string;
  keyId: string;
  email: string;
  /** Live keys hold 1 credit while the check runs (402 if none is available); sandbox keys don't. */
  billable: boolean;
  idempotency: IdempotencyClaim;
  now: Date;
  /** The creating process's lease on the check: renewed by its keeper while it runs, taken over by another node after. */
  lease: LeaseGrant;
  /**
   * A result already known at creation (the sandbox answers without waiting): the check is
   * created completed, billed and recorded in the same transaction, as `completeVerification`
   * would have done it a moment later.
   */
  result?: StoredResult;
}

export type StartVerificationOutcome =
  | { kind: 'created'; verification: VerificationRecord }
  | { kind: 'replay'; verification: VerificationRecord }
  | { kind: 'idempotency_mismatch' }
  | { kind: 'insufficient_credits'; available: number };

// ---------------------------------------------------------------- the work queue

/** An item handed to a worker under a lease. */
export interface ClaimedItem {
  itemId: number;
  requestId: string;
  accountId: string;
  email: string;
  domain: string;
  sandbox: boolean;
  /** How many times the item has been claimed before (crash/lease-expiry retries). */
  attempts: number;
  /** How many greylisting rechecks already happened. */
  rechecks: number;
}

export interface ClaimInput {
  /** Lease owner: unique per worker instance (process). */
  owner: string;
  /** Affinity name (same egress host): a greylisted item is rechecked by this worker first. */
  affinity: string;
  now: Date;
  leaseMs: number;
  limit: number;
  /** A greylisted item whose affinity worker has not come back within this long goes to anyone. */
  affinityGraceMs: number;
}

