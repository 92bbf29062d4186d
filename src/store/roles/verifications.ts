/**
 * Role: single checks (`POST /v1/verify`). Start: idempotency claim, credit hold, the check
 * (written completed at once when the result is already known, as the sandbox's is). Complete:
 * debit or release, address history, the stored result. Each is one transaction; a check
 * finished twice (a lease taken over from a slow process) is settled once.
 */
import { finalizeStoredResult, settle } from '../billing-rules.js';
import { Rollback } from '../sql.js';
import type { Db, Tx } from '../sql.js';
import type { StoredResult } from '../stored-result.js';
import { timeOrderedId } from '../time-ordered-id.js';
import type { BulkWrites } from './dialect-parts.js';
import { openHistories } from './history.js';
import { claimIdempotency, peekIdempotency, retargetIdempotency } from './idempotency.js';
import { hold, moveCredits } from './ledger.js';
import { announceAnsweredCheck, announceFailedCheck } from './webhooks/webhook-outbox.js';
import type { LeaseGrant } from './lease-grant.js';
import type { IdempotencyClaim } from './idempotency.js';

/** Single checks (`POST /v1/verify`): hold → debit or release, idempotent replay, leases. */
export interface VerificationsRole {
  /** Claims the idempotency key, checks and holds the credit, inserts the check: one transaction. */
  start(input: StartVerificationInput): Promise<StartVerificationOutcome>;
  /**
   * Stores the result, fills `history` from the account's earlier checks of the address, and
   * turns the hold into a debit (actionable verdict) or a release. Idempotent.
   */
  complete(input: { verificationId: string; result: StoredResult; now: Date }): Promise<VerificationRecord>;
  /** Engine failure (a bug or outage): state failed, hold released. */
  fail(input: { verificationId: string; now: Date }): Promise<VerificationRecord>;
  get(accountId: string, verificationId: string): Promise<VerificationRecord | null>;
  /** What `start` would say of a replay, read only: the check a live Idempotency-Key names, a mismatch, or null (start would create). */
  findReplay(input: { accountId: string; idempotency: IdempotencyClaim; now: Date }): Promise<Extract<StartVerificationOutcome, { kind: 'replay' | 'idempotency_mismatch' }> | null>;
  /**
   * A caller was told the check goes on (202): resumed, not failed, if its process dies.
   * `answeredAs`: the 202's requestId (the first one kept), repeated by its `verification.completed`
   * event — written now if the check completed before this call (docs/webhooks.md).
   */
  markResumable(verificationId: string, answeredAs?: string): Promise<void>;
}

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

export interface VerificationRow {
  id: string;
  account_id: string;
  email: string;
  state: VerificationState;
  /** boolean on PostgreSQL, 0/1 on SQLite */
  billable: boolean | number;
  billing: string;
  result_json: string | null;
  created_at: string;
  /** Its caller was answered 202 (boolean on PostgreSQL, 0/1 on SQLite). */
  resumable?: boolean | number;
  /** The requestId of the first 202 its caller got. */
  answered_request_id?: string | null;
}

export const toVerificationRecord = (r: VerificationRow): VerificationRecord => ({
  id: r.id,
  accountId: r.account_id,
  email: r.email,
  state: r.state,
  billable: r.billable === true || r.billable === 1,
  createdAt: r.created_at,
  result: r.result_json ? (JSON.parse(r.result_json) as StoredResult) : null,
});

async function load(tx: Tx, id: string, lock = false): Promise<VerificationRow | undefined> {
  return tx.get<VerificationRow>(`SELECT * FROM verifications WHERE id = ?${lock ? tx.dialect.forUpdate() : ''}`, [id]);
}

/**
 * Bills a finished check (debit or release of its held credit) and records it in the address
 * history. Lock order, as for batch results: the history row, then the account row.
 */
async function settleCheck(
  tx: Tx,
  bulk: BulkWrites,
  check: { id: string; accountId: string; email: string },
  held: boolean,
  result: StoredResult,
  now: Date,
): Promise<{ billing: string; stored: StoredResult }> {
  const settled = settle(result.envelope, held);
  const histories = await openHistories(tx, bulk, [check]);
  const stored = histories.record(check, (previous) => finalizeStoredResult(result, settled.envelope, previous));
  await histories.save();
  if (held) await moveCredits(tx, bulk, [{ accountId: check.accountId, kind: settled.billing === 'debited' ? 'debit' : 'release', credits: 1, verificationId: check.id, at: now }]);
  return { billing: settled.billing, stored };
}

/** Fails a running check and releases its hold, the row already locked (also the end of a lapsed check nobody may take over: lease-kinds.ts). */
export async function failLocked(tx: Tx, bulk: BulkWrites, row: VerificationRow, now: Date): Promise<VerificationRecord> {
  if (row.state !== 'running') return toVerificationRecord(row);
  if (row.billing === 'held') await moveCredits(tx, bulk, [{ accountId: row.account_id, kind: 'release', credits: 1, verificationId: row.id, at: now }]);
  const updated = await tx.get<VerificationRow>("UPDATE verifications SET state = 'failed', billing = ?, finished_at = ? WHERE id = ? RETURNING *", [
    row.billing === 'held' ? 'released' : row.billing,
    now,
    row.id,
  ]);
  const failed = toVerificationRecord(updated as VerificationRow);
  // A caller told 202 waits for an event: its check's end is announced even when that end is a failure.
  if (row.resumable) await announceFailedCheck(tx, failed, row.answered_request_id ?? null, now);
  return failed;
}

export function verificationsRole(db: Db, bulk: BulkWrites): VerificationsRole {
  return {
    start: (input) =>
      db.write<StartVerificationOutcome>(async (tx) => {
        const id = timeOrderedId(input.now.getTime());
        const seen = await claimIdempotency(tx, input.accountId, input.idempotency, id, input.now);
        if (seen.kind === 'different') return new Rollback({ kind: 'idempotency_mismatch' });
        if (seen.kind === 'same') {
          const row = await load(tx, seen.targetId);
          if (row) return new Rollback({ kind: 'replay', verification: toVerificationRecord(row) });
          await retargetIdempotency(tx, input.accountId, input.idempotency, id, input.now);
        }
        if (input.billable) {
          const short = await hold(tx, bulk, input.accountId, 1, { verificationId: id }, input.now);
          if (short !== null) return new Rollback({ kind: 'insufficient_credits', available: short });
        }
        const now = input.now.toISOString();
        const record: VerificationRecord = { id, accountId: input.accountId, email: input.email, state: 'running', billable: input.billable, createdAt: now, result: null };
        const billing = input.billable ? 'held' : 'none';
        if (!input.result) {
          await tx.run(
            `INSERT INTO verifications (id, account_id, key_id, email, state, billable, billing, created_at, lease_owner, lease_expires_at, resumable)
             VALUES (?, ?, ?, ?, 'running', ?, ?, ?, ?, ?, FALSE)`,
            [id, input.accountId, input.keyId, input.email, input.billable, billing, input.now, input.lease.owner, input.lease.until],
          );
          return { kind: 'created', verification: record };
        }
        // Known at once (the sandbox): billed, in history and written completed by this one transaction.
        const settled = await settleCheck(tx, bulk, record, input.billable, input.result, input.now);
        await tx.run(
          `INSERT INTO verifications (id, account_id, key_id, email, state, billable, billing, result_json, created_at, finished_at)
           VALUES (?, ?, ?, ?, 'completed', ?, ?, ?, ?, ?)`,
          [id, input.accountId, input.keyId, input.email, input.billable, settled.billing, JSON.stringify(settled.stored), input.now, input.now],
        );
        return { kind: 'created', verification: { ...record, state: 'completed', result: settled.stored } };
      }),

    complete: (input) =>
      db.write(async (tx) => {
        const row = await load(tx, input.verificationId, true);
        if (!row) throw new Error(`verification ${input.verificationId} does not exist`);
        const record = toVerificationRecord(row);
        if (row.state !== 'running') return record;
        const settled = await settleCheck(tx, bulk, record, row.billing === 'held', input.result, input.now);
        await tx.run("UPDATE verifications SET state = 'completed', billing = ?, result_json = ?, finished_at = ? WHERE id = ?", [
          settled.billing,
          JSON.stringify(settled.stored),
          input.now,
          row.id,
        ]);
        // A caller told 202 learns the result through `verification.completed`, written with it.
        if (row.resumable) await announceAnsweredCheck(tx, record, row.answered_request_id ?? null, settled.stored, input.now);
        return { ...record, state: 'completed', result: settled.stored };
      }),

    fail: (input) =>
      db.write(async (tx) => {
        const row = await load(tx, input.verificationId, true);
        if (!row) throw new Error(`verification ${input.verificationId} does not exist`);
        return failLocked(tx, bulk, row, input.now);
      }),

    findReplay: async (input) => {
      const seen = await peekIdempotency(db, input.accountId, input.idempotency, input.now);
      if (seen === null) return null;
      if (seen.kind === 'different') return { kind: 'idempotency_mismatch' };
      const row = await load(db, seen.targetId);
      return row ? { kind: 'replay', verification: toVerificationRecord(row) } : null;
    },

    get: async (accountId, id) => {
      const row = await load(db, id);
      return row && row.account_id === accountId ? toVerificationRecord(row) : null;
    },

    // A check that ended between the caller's timeout and this write was never announced by
    // `complete` or `fail` (it was not resumable yet): its caller is told 202 all the same, so it is announced here.
    markResumable: (id, answeredAs) =>
      db.write(async (tx) => {
        const answered = answeredAs ?? null;
        if ((await tx.run("UPDATE verifications SET resumable = TRUE, answered_request_id = COALESCE(answered_request_id, ?) WHERE id = ? AND state = 'running'", [answered, id])) > 0) return;
        const row = await load(tx, id);
        if (row?.state === 'completed' && row.result_json) {
          await announceAnsweredCheck(tx, toVerificationRecord(row), answered, JSON.parse(row.result_json) as StoredResult, new Date());
        } else if (row?.state === 'failed') {
          await announceFailedCheck(tx, toVerificationRecord(row), answered, new Date());
        }
      }),
  };
}
