/**
 * Role: feedback (docs/feedback.md). An account's send feedback: each event taken once per
 * (account, source, event id), folded into the address's summary (address_feedback) by the same
 * transaction, with the counts of its import and its source. A chunk of events is one transaction,
 * so a crash leaves whole chunks, and a re-run adds only what was missing.
 *
 * Lock order (PostgreSQL): events sorted by address and event id, each address's summary row
 * locked in that order; then the import row; then the source row.
 */
import { list } from '../../sql.js';
import type { Db, Tx } from '../../sql.js';
import { DEFAULT_FEEDBACK_WINDOW_DAYS, NO_FEEDBACK } from '../../../core/feedback-verdict.js';
import type { AddressFeedback, AddressHistory, PublicVerdict } from '../../../core/types.js';
import { applyEvent } from '../../../feedback/events.js';
import type { FeedbackEvent, FeedbackKind } from '../../../feedback/events.js';
import { feedbackKey } from './feedback-records.js';
import type { AddressRecord, FeedbackImport, FeedbackLookup, FeedbackSourceStatus, RecordFeedbackInput, RecordFeedbackOutcome } from './feedback-records.js';
import { timeOrderedId } from '../../time-ordered-id.js';
import type { LeaseGrant } from '../lease-grant.js';

/**
 * Send feedback (docs/feedback.md): bounces, deliveries and complaints an account reports about
 * addresses, each event taken once; the summary a check reads; the sources and their tokens.
 */
export interface FeedbackRole {
  /** The feedback of those addresses that have any, and the window of each account named. */
  lookup(keys: ReadonlyArray<{ accountId: string; email: string }>): Promise<FeedbackLookup>;
  /** One transaction: the events not seen before, the addresses' summaries, the import's and the source's counts. */
  record(input: RecordFeedbackInput): Promise<RecordFeedbackOutcome>;
  /** `lease`: the importing process's (LeasesRole, kind `feedbackImport`): one that lapses ends the import failed. */
  startImport(input: { accountId: string; source: string; name: string; now: Date; lease?: LeaseGrant }): Promise<string>;
  /** Ends an import still running; one already ended (its lease lapsed: failed) is returned as it is. */
  finishImport(id: string, state: 'completed' | 'failed', now: Date): Promise<FeedbackImport>;
  /** Newest first. */
  imports(accountId: string, limit: number): Promise<FeedbackImport[]>;
  /** The address's history (checks and feedback) and its latest events, for the dashboard. */
  address(accountId: string, email: string): Promise<AddressRecord>;
  /** Removes the address's checks history, feedback summary and events (a person asked to be forgotten); false when there was none. */
  forget(accountId: string, email: string): Promise<boolean>;
  /** False for an unknown account. */
  setWindow(accountId: string, days: number): Promise<boolean>;
  /** Days a hard bounce or a delivery counts for the account's checks. */
  windowDays(accountId: string): Promise<number>;
  sources(accountId: string): Promise<FeedbackSourceStatus[]>;
  /** The webhook token of (account, source): only its SHA-256 and a display prefix are kept; a new one replaces the old. */
  setToken(input: { accountId: string; source: string; tokenHash: string; tokenPrefix: string; now: Date }): Promise<void>;
  /** The account and source of a token, with the key its deliveries are verified with (null: none set). */
  sourceByToken(tokenHash: string): Promise<{ accountId: string; source: string; verifyKey: string | null } | null>;
  /** What checks the provider's signature (SendGrid's public key, Mailgun's signing key, Postmark's user:password). */
  setVerifyKey(input: { accountId: string; source: string; verifyKey: string; now: Date }): Promise<void>;
  /** A delivery the source sent that was refused (bad signature, unreadable body), for the dashboard. */
  noteError(input: { accountId: string; source: string; message: string; now: Date }): Promise<void>;
}

interface SummaryRow {
  account_id: string;
  email: string;
  last_hard_bounce_at: string | null;
  last_hard_bounce_code: string | null;
  last_hard_bounce_source: string | null;
  soft_bounces: number;
  last_soft_bounce_at: string | null;
  last_soft_bounce_source: string | null;
  last_delivery_at: string | null;
  last_delivery_source: string | null;
  complaints: number;
  last_complaint_at: string | null;
  last_complaint_source: string | null;
}

const iso = (v: string | null): string | null => (v === null ? null : new Date(v).toISOString());

function toFeedback(r: SummaryRow): AddressFeedback {
  return {
    lastHardBounce: r.last_hard_bounce_at ? { at: iso(r.last_hard_bounce_at) as string, source: r.last_hard_bounce_source ?? '', code: r.last_hard_bounce_code } : null,
    softBounces: r.soft_bounces > 0 && r.last_soft_bounce_at ? { at: iso(r.last_soft_bounce_at) as string, source: r.last_soft_bounce_source ?? '', count: r.soft_bounces } : null,
    lastDelivery: r.last_delivery_at ? { at: iso(r.last_delivery_at) as string, source: r.last_delivery_source ?? '' } : null,
    complaints: r.complaints > 0 && r.last_complaint_at ? { at: iso(r.last_complaint_at) as string, source: r.last_complaint_source ?? '', count: r.complaints } : null,
  };
}

const toDate = (at: string | undefined): Date | null => (at === undefined ? null : new Date(at));

/** Rows per multi-row statement: well under SQLite's 32,766 and PostgreSQL's 65,535 parameters. */
const SLICE = 500;
function slices<T>(items: readonly T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += SLICE) out.push(items.slice(i, i + SLICE));
  return out;
}

async function saveSummary(tx: Tx, accountId: string, email: string, f: AddressFeedback): Promise<void> {
  await tx.run(
    `UPDATE address_feedback SET last_hard_bounce_at = ?, last_hard_bounce_code = ?, last_hard_bounce_source = ?,
       soft_bounces = ?, last_soft_bounce_at = ?, last_soft_bounce_source = ?, last_delivery_at = ?, last_delivery_source = ?,
       complaints = ?, last_complaint_at = ?, last_complaint_source = ?
     WHERE account_id = ? AND email = ?`,
    [
      toDate(f.lastHardBounce?.at),
      f.lastHardBounce?.code ?? null,
      f.lastHardBounce?.source ?? null,
      f.softBounces?.count ?? 0,
      toDate(f.softBounces?.at),
      f.softBounces?.source ?? null,
      toDate(f.lastDelivery?.at),
      f.lastDelivery?.source ?? null,
      f.complaints?.count ?? 0,
      toDate(f.complaints?.at),
      f.complaints?.source ?? null,
      accountId,
      email,
    ],
  );
}

interface ImportRow {
  id: string;
  account_id: string;
  source: string;
  name: string;
  state: FeedbackImport['state'];
  events: number;
  duplicates: number;
  rejected: number;
  started_at: string;
  finished_at: string | null;
}

const toImport = (r: ImportRow): FeedbackImport => ({
  id: r.id,
  accountId: r.account_id,
  source: r.source,
  name: r.name,
  state: r.state,
  events: r.events,
  duplicates: r.duplicates,
  rejected: r.rejected,
  startedAt: iso(r.started_at) as string,
  finishedAt: iso(r.finished_at),
});

export function feedbackRole(db: Db): FeedbackRole {
  return {
    async lookup(keys) {
      const out: FeedbackLookup = { feedback: new Map(), windowDays: new Map() };
      const byAccount = new Map<string, string[]>();
      for (const k of keys) byAccount.set(k.accountId, [...(byAccount.get(k.accountId) ?? []), k.email]);
      // The account's window comes with its rows (a join), so a check costs one read with or without feedback.
      const SELECT = 'SELECT f.*, a.feedback_window_days FROM address_feedback f JOIN accounts a ON a.id = f.account_id WHERE f.account_id = ? AND f.email';
      for (const [accountId, emails] of byAccount) {
        // A single check (the API's hot path) is a plain point read: no list parameter to build or unpack.
        const only = emails.length === 1 ? emails[0] : undefined;
        const rows =
          only !== undefined
            ? await db.all<SummaryRow & { feedback_window_days: number }>(`${SELECT} = ?`, [accountId, only])
            : await db.all<SummaryRow & { feedback_window_days: number }>(`${SELECT} ${db.dialect.inList}`, [accountId, list([...new Set(emails)])]);
        for (const r of rows) {
          out.feedback.set(feedbackKey(r.account_id, r.email), toFeedback(r));
          out.windowDays.set(r.account_id, Number(r.feedback_window_days));
        }
      }
      return out;
    },

    record: (input) =>
      db.write(async (tx) => {
        // One order for every writer (address, then event id), so two nodes taking the same events lock alike.
        const order = (e: { email: string; eventId: string }) => `${e.email}\n${e.eventId}`;
        const given = [...new Map(input.events.map((e) => [e.eventId, e])).values()].sort((a, b) => (order(a) < order(b) ? -1 : order(a) > order(b) ? 1 : 0));
        // The events not seen before: the ones the insert returns.
        const fresh = new Set<string>();
        for (const slice of slices(given)) {
          const rows = await tx.all<{ event_id: string }>(
            `INSERT INTO feedback_events (account_id, source, event_id, email, kind, occurred_at, code, import_id, received_at)
             VALUES ${slice.map(() => '(?, ?, ?, ?, ?, ?, ?, ?, ?)').join(', ')} ON CONFLICT (account_id, source, event_id) DO NOTHING RETURNING event_id`,
            slice.flatMap((e) => [input.accountId, input.source, e.eventId, e.email, e.kind, new Date(e.at), e.code, input.importId ?? null, input.now]),
          );
          for (const r of rows) fresh.add(r.event_id);
        }
        const events = given.filter((e) => fresh.has(e.eventId));
        const recorded = events.length;
        const duplicates = input.events.length - recorded;
        const lastAt = events.reduce<string | null>((last, e) => (last === null || Date.parse(e.at) > Date.parse(last) ? e.at : last), null);
        // Each address's summary, locked (an upsert takes the row lock) and read in one statement per slice, then written once.
        const byEmail = new Map<string, FeedbackEvent[]>();
        for (const e of events) byEmail.set(e.email, [...(byEmail.get(e.email) ?? []), e]);
        for (const slice of slices([...byEmail.keys()])) {
          const rows = await tx.all<SummaryRow>(
            `INSERT INTO address_feedback (account_id, email) VALUES ${slice.map(() => '(?, ?)').join(', ')}
             ON CONFLICT (account_id, email) DO UPDATE SET email = excluded.email RETURNING *`,
            slice.flatMap((email) => [input.accountId, email]),
          );
          for (const row of rows) {
            const folded = (byEmail.get(row.email) ?? []).reduce((f, e) => applyEvent(f, e, input.source), toFeedback(row));
            await saveSummary(tx, input.accountId, row.email, folded);
          }
        }
        const rejected = input.rejected ?? 0;
        if (input.importId) {
          await tx.run('UPDATE feedback_imports SET events = events + ?, duplicates = duplicates + ?, rejected = rejected + ? WHERE id = ?', [recorded, duplicates, rejected, input.importId]);
        }
        await tx.run(
          `INSERT INTO feedback_sources (account_id, source, created_at, events, duplicates, errors, last_event_at, last_error, last_error_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
           ON CONFLICT (account_id, source) DO UPDATE SET events = feedback_sources.events + excluded.events,
             duplicates = feedback_sources.duplicates + excluded.duplicates, errors = feedback_sources.errors + excluded.errors,
             last_event_at = CASE WHEN feedback_sources.last_event_at IS NULL OR excluded.last_event_at > feedback_sources.last_event_at THEN excluded.last_event_at ELSE feedback_sources.last_event_at END,
             last_error = COALESCE(excluded.last_error, feedback_sources.last_error), last_error_at = COALESCE(excluded.last_error_at, feedback_sources.last_error_at)`,
          [input.accountId, input.source, input.now, recorded, duplicates, rejected, lastAt === null ? null : new Date(lastAt), input.lastError ?? null, input.lastError ? input.now : null],
        );
        return { recorded, duplicates };
      }),

    async startImport(input) {
      const id = timeOrderedId(input.now.getTime());
      await db.run("INSERT INTO feedback_imports (id, account_id, source, name, state, started_at, lease_owner, lease_expires_at) VALUES (?, ?, ?, ?, 'running', ?, ?, ?)", [
        id,
        input.accountId,
        input.source,
        input.name,
        input.now,
        input.lease?.owner ?? null,
        input.lease?.until ?? null,
      ]);
      return id;
    },

    async finishImport(id, state, now) {
      // An import whose lease lapsed was ended failed meanwhile: it stays so.
      const row =
        (await db.get<ImportRow>("UPDATE feedback_imports SET state = ?, finished_at = ?, lease_owner = NULL, lease_expires_at = NULL WHERE id = ? AND state = 'running' RETURNING *", [
          state,
          now,
          id,
        ])) ?? (await db.get<ImportRow>('SELECT * FROM feedback_imports WHERE id = ?', [id]));
      if (!row) throw new Error(`feedback import ${id} does not exist`);
      return toImport(row);
    },

    async imports(accountId, limit) {
      return (await db.all<ImportRow>('SELECT * FROM feedback_imports WHERE account_id = ? ORDER BY started_at DESC LIMIT ?', [accountId, limit])).map(toImport);
    },

    async address(accountId, email) {
      const summary = await db.get<SummaryRow>('SELECT * FROM address_feedback WHERE account_id = ? AND email = ?', [accountId, email]);
      const checks = await db.get<{ checks: number; first_checked_at: string; last_checked_at: string; last_verdict: string | null }>(
        'SELECT checks, first_checked_at, last_checked_at, last_verdict FROM address_history WHERE account_id = ? AND email = ?',
        [accountId, email],
      );
      const events = await db.all<{ source: string; kind: FeedbackKind; occurred_at: string; code: string | null; received_at: string }>(
        'SELECT source, kind, occurred_at, code, received_at FROM feedback_events WHERE account_id = ? AND email = ? ORDER BY occurred_at DESC LIMIT 50',
        [accountId, email],
      );
      const history: AddressHistory | null =
        !summary && !checks
          ? null
          : {
              checks: Number(checks?.checks ?? 0),
              firstCheckedAt: iso(checks?.first_checked_at ?? null),
              lastCheckedAt: iso(checks?.last_checked_at ?? null),
              lastVerdict: (checks?.last_verdict ?? null) as PublicVerdict | null,
              ...(summary ? toFeedback(summary) : NO_FEEDBACK),
            };
      return { history, events: events.map((e) => ({ source: e.source, kind: e.kind, at: iso(e.occurred_at) as string, code: e.code, receivedAt: iso(e.received_at) as string })) };
    },

    // One transaction: the address's checks, feedback summary and events are gone together.
    forget: (accountId, email) =>
      db.write(async (tx) => {
        let removed = 0;
        removed += await tx.run('DELETE FROM feedback_events WHERE account_id = ? AND email = ?', [accountId, email]);
        removed += await tx.run('DELETE FROM address_feedback WHERE account_id = ? AND email = ?', [accountId, email]);
        removed += await tx.run('DELETE FROM address_history WHERE account_id = ? AND email = ?', [accountId, email]);
        return removed > 0;
      }),

    async setWindow(accountId, days) {
      return (await db.run('UPDATE accounts SET feedback_window_days = ? WHERE id = ?', [days, accountId])) > 0;
    },

    async windowDays(accountId) {
      const row = await db.get<{ feedback_window_days: number }>('SELECT feedback_window_days FROM accounts WHERE id = ?', [accountId]);
      return Number(row?.feedback_window_days ?? DEFAULT_FEEDBACK_WINDOW_DAYS);
    },

    async sources(accountId) {
      const rows = await db.all<{
        source: string;
        token_prefix: string | null;
        token_hash: string | null;
        verify_key: string | null;
        events: number;
        duplicates: number;
        errors: number;
        last_event_at: string | null;
        last_error: string | null;
        last_error_at: string | null;
      }>('SELECT * FROM feedback_sources WHERE account_id = ? ORDER BY source', [accountId]);
      return rows.map(
        (r): FeedbackSourceStatus => ({
          source: r.source,
          hasToken: r.token_hash !== null,
          hasVerifyKey: r.verify_key !== null,
          tokenPrefix: r.token_prefix,
          events: Number(r.events),
          duplicates: Number(r.duplicates),
          errors: Number(r.errors),
          lastEventAt: iso(r.last_event_at),
          lastError: r.last_error,
          lastErrorAt: iso(r.last_error_at),
        }),
      );
    },

    async setToken(input) {
      await db.run(
        `INSERT INTO feedback_sources (account_id, source, token_hash, token_prefix, created_at) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (account_id, source) DO UPDATE SET token_hash = excluded.token_hash, token_prefix = excluded.token_prefix`,
        [input.accountId, input.source, input.tokenHash, input.tokenPrefix, input.now],
      );
    },

    async sourceByToken(tokenHash) {
      const row = await db.get<{ account_id: string; source: string; verify_key: string | null }>('SELECT account_id, source, verify_key FROM feedback_sources WHERE token_hash = ?', [tokenHash]);
      return row ? { accountId: row.account_id, source: row.source, verifyKey: row.verify_key } : null;
    },

    async setVerifyKey(input) {
      await db.run(
        `INSERT INTO feedback_sources (account_id, source, verify_key, created_at) VALUES (?, ?, ?, ?)
         ON CONFLICT (account_id, source) DO UPDATE SET verify_key = excluded.verify_key`,
        [input.accountId, input.source, input.verifyKey, input.now],
      );
    },

    async noteError(input) {
      await db.run(
        `INSERT INTO feedback_sources (account_id, source, created_at, errors, last_error, last_error_at) VALUES (?, ?, ?, 1, ?, ?)
         ON CONFLICT (account_id, source) DO UPDATE SET errors = feedback_sources.errors + 1, last_error = excluded.last_error, last_error_at = excluded.last_error_at`,
        [input.accountId, input.source, input.now, input.message, input.now],
      );
    },
  };
}

