/**
 * Role: retention (docs/design.md §4): requests past their retention, old finished checks, expired
 * idempotency records, failed list imports, old failed sign-ins and old feedback events are deleted.
 *
 * In small transactions: one DELETE of millions of rows held the database (SQLite: the whole
 * file) for tens of seconds, stalling every request and failing some with `database is locked`.
 * Each transaction here deletes at most `chunk` rows, and the purge yields to the event loop
 * between them, so serving goes on while a large purge runs. A request's items go first, chunk by
 * chunk, then the request row; a purge stopped half-way leaves only rows the next purge deletes.
 */
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { addDays } from '../billing-rules.js';
import type { Db } from '../sql.js';
import { DEFAULT_FEEDBACK_EVENTS_RETENTION_DAYS, feedbackEventCutoff } from '../../feedback/event-retention.js';

/** Retention (docs/design.md §4): what is past its time is deleted. */
export interface RetentionRole {
  /**
   * Requests past retentionExpiresAt (with items), finished checks older than the retention,
   * expired idempotency records, the entries of failed list imports (and the failed lists
   * themselves once older than the retention), feedback events that happened more than
   * `feedbackEventsRetentionDays` ago (default 365) and shared engine state. Deleted in transactions
   * of at most `chunk` rows (default 2,000), yielding to the event loop between them.
   */
  purgeExpired(now: Date, verificationRetentionDays: number, options?: { chunk?: number; feedbackEventsRetentionDays?: number }): Promise<PurgeOutcome>;
}

export interface PurgeOutcome {
  requests: number;
  verifications: number;
  idempotencyRecords: number;
  /** Failed list imports whose entries were deleted. */
  failedLists: number;
  /** Failed sign-in records older than a day, deleted. */
  signInFailures: number;
  /** Feedback events older than their retention, deleted (the address summaries stay: docs/feedback.md). */
  feedbackEvents: number;
}

const DEFAULT_CHUNK = 2_000;

export function retentionRole(db: Db, purgeEngineState: () => Promise<void>): RetentionRole {
  /** Runs `step` (one transaction, returning rows deleted) until it deletes fewer than `chunk`; returns the total. */
  const inChunks = async (chunk: number, step: () => Promise<number>): Promise<number> => {
    let total = 0;
    for (;;) {
      const n = await step();
      total += n;
      if (n < chunk) return total;
      await yieldToLoop();
    }
  };

  return {
    async purgeExpired(now, verificationRetentionDays, options = {}) {
      const chunk = options.chunk ?? DEFAULT_CHUNK;
      let requests = 0;
      for (;;) {
        const expired = await db.all<{ id: string }>('SELECT id FROM requests WHERE retention_expires_at IS NOT NULL AND retention_expires_at <= ? LIMIT ?', [now, 100]);
        for (const { id } of expired) {
          await inChunks(chunk, () => db.write((tx) => Promise.resolve(tx.run('DELETE FROM items WHERE id IN (SELECT id FROM items WHERE request_id = ? LIMIT ?)', [id, chunk]))));
          await purgeRequestEvidence(db, id, chunk, inChunks);
          requests += await db.write((tx) => Promise.resolve(tx.run('DELETE FROM requests WHERE id = ?', [id])));
          await yieldToLoop();
        }
        if (expired.length < 100) break;
      }
      const verifications = await inChunks(chunk, () =>
        db.write((tx) =>
          Promise.resolve(
            tx.run("DELETE FROM verifications WHERE id IN (SELECT id FROM verifications WHERE state <> 'running' AND finished_at <= ? LIMIT ?)", [
              addDays(now, -verificationRetentionDays),
              chunk,
            ]),
          ),
        ),
      );
      // A single check's evidence goes when its verification does (same cutoff).
      await inChunks(chunk, () =>
        db.write((tx) =>
          Promise.resolve(
            tx.run("DELETE FROM check_evidence WHERE (check_id, email) IN (SELECT check_id, email FROM check_evidence WHERE kind = 'check' AND recorded_at <= ? LIMIT ?)", [
              addDays(now, -verificationRetentionDays),
              chunk,
            ]),
          ),
        ),
      );
      const idempotencyRecords = await inChunks(chunk, () =>
        db.write((tx) =>
          Promise.resolve(
            tx.run('DELETE FROM idempotency_records WHERE (account_id, route, key) IN (SELECT account_id, route, key FROM idempotency_records WHERE expires_at <= ? LIMIT ?)', [
              now,
              chunk,
            ]),
          ),
        ),
      );
      const failedLists = await purgeFailedLists(db, now, verificationRetentionDays, chunk, inChunks);
      const signInFailures = await purgeSignInFailures(db, now, chunk, inChunks);
      // By the time each happened, the cutoff feedback imports and deliveries refuse older events by
      // (src/feedback/event-retention.ts); the address summaries they were folded into stay.
      const eventCutoff = feedbackEventCutoff(now, options.feedbackEventsRetentionDays ?? DEFAULT_FEEDBACK_EVENTS_RETENTION_DAYS);
      const feedbackEvents = await inChunks(chunk, () =>
        db.write((tx) =>
          Promise.resolve(
            tx.run(
              'DELETE FROM feedback_events WHERE (account_id, source, event_id) IN (SELECT account_id, source, event_id FROM feedback_events WHERE occurred_at <= ? LIMIT ?)',
              [eventCutoff, chunk],
            ),
          ),
        ),
      );
      await purgeEngineState();
      return { requests, verifications, idempotencyRecords, failedLists, signInFailures, feedbackEvents };
    },
  };
}

/** A batch's evidence (docs/evidence.md) goes with its items. */
function purgeRequestEvidence(db: Db, requestId: string, chunk: number, inChunks: (chunk: number, step: () => Promise<number>) => Promise<number>): Promise<number> {
  return inChunks(chunk, () =>
    db.write((tx) =>
      Promise.resolve(tx.run("DELETE FROM check_evidence WHERE (check_id, email) IN (SELECT check_id, email FROM check_evidence WHERE check_id = ? AND kind = 'item' LIMIT ?)", [requestId, chunk])),
    ),
  );
}

/**
 * A failed import's entries can never be verified: they are deleted at once (position range by
 * range), with its kept file. The list row itself, its file record (with the error) and its bad
 * rows stay for the owner to see until they are older than the retention.
 */
async function purgeFailedLists(db: Db, now: Date, retentionDays: number, chunk: number, inChunks: (chunk: number, step: () => Promise<number>) => Promise<number>): Promise<number> {
  const failed = await db.all<{ id: string; entries: number; created_at: string }>(
    "SELECT id, entries, created_at FROM lists l WHERE state = 'failed' AND (EXISTS (SELECT 1 FROM list_entries e WHERE e.list_id = l.id) OR created_at <= ?)",
    [addDays(now, -retentionDays)],
  );
  const cutoff = addDays(now, -retentionDays).toISOString();
  for (const l of failed) {
    for (let from = 0; from < Number(l.entries); from += chunk) {
      await db.write((tx) => Promise.resolve(tx.run('DELETE FROM list_entries WHERE list_id = ? AND position >= ? AND position < ?', [l.id, from, from + chunk])));
      await yieldToLoop();
    }
    await inChunks(chunk, () => db.write((tx) => Promise.resolve(tx.run('DELETE FROM list_file_chunks WHERE list_id = ? AND seq IN (SELECT seq FROM list_file_chunks WHERE list_id = ? LIMIT ?)', [l.id, l.id, chunk]))));
    await db.write(async (tx) => {
      if (new Date(l.created_at).toISOString() <= cutoff) {
        await tx.run('DELETE FROM list_bad_rows WHERE list_id = ?', [l.id]);
        await tx.run('DELETE FROM list_files WHERE list_id = ?', [l.id]);
        await tx.run('DELETE FROM lists WHERE id = ?', [l.id]);
      }
    });
  }
  return failed.length;
}

/**
 * Failed sign-ins are counted over a window of minutes (src/service/owners/owner-sign-in.ts); a day
 * later they count for nothing, and were kept for ever before (issue 21). Scope rows (the locks
 * of login-throttle.ts) with no failure left go with them; one is made again on the next attempt.
 */
const SIGN_IN_FAILURES_KEPT_DAYS = 1;

async function purgeSignInFailures(db: Db, now: Date, chunk: number, inChunks: (chunk: number, step: () => Promise<number>) => Promise<number>): Promise<number> {
  const failures = await inChunks(chunk, () =>
    db.write((tx) =>
      Promise.resolve(
        tx.run('DELETE FROM login_failures WHERE (scope, failed_at) IN (SELECT scope, failed_at FROM login_failures WHERE failed_at <= ? LIMIT ?)', [
          addDays(now, -SIGN_IN_FAILURES_KEPT_DAYS),
          chunk,
        ]),
      ),
    ),
  );
  await inChunks(chunk, () =>
    db.write((tx) =>
      Promise.resolve(
        tx.run('DELETE FROM login_scopes WHERE scope IN (SELECT scope FROM login_scopes s WHERE NOT EXISTS (SELECT 1 FROM login_failures f WHERE f.scope = s.scope) LIMIT ?)', [chunk]),
      ),
    ),
  );
  return failures;
}
