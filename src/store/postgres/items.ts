/**
 * Batch items on PostgreSQL: leasing with FOR UPDATE SKIP LOCKED (two workers never take one
 * item, and neither waits for the other), lease renewal and hand-back, and per-item results
 * recorded idempotently with their billing.
 *
 * Lock order: item rows first. A result locks its item, then its address history row, then —
 * in one statement at the end — its request and account rows. Claims lock items, then (only
 * for a queued request) the request.
 */
import type { PgDatabase, Tx } from './database.js';
import { history } from './ledger.js';
import { finalizeIfDone } from './batches.js';
import { finalizeStoredResult, nextHistory, settle } from '../billing-rules.js';
import type { ItemBilling } from '../billing-rules.js';
import type { ClaimInput, ClaimedItem, ItemResultInput, ItemResultOutcome } from '../store.js';

/** Open requests looked at per claim, oldest first. */
const OPEN_REQUESTS_SCANNED = 20;

/** Advisory lock class of "a claim is taking this domain of this request" (two-int key space, apart from the migration lock). */
const DOMAIN_CLAIM_LOCK = 0x70636c6d; // "pclm"

/**
 * Pending items of one request, whole domains at a time, in domain order. Concurrent claims
 * (two workers) take disjoint domains: each domain is tried with a transaction-scoped advisory
 * lock, and one that another claim holds is skipped. Two workers on one domain would share its
 * MX host's session slots, and the later one would wait for the other's sessions to go idle.
 * Only a domain with more pending items than the room left is split (the first one taken).
 */
async function claimDomains(tx: Tx, requestId: string, room: number): Promise<Array<{ id: number }>> {
  // The next domains with pending items, each with its count (capped at room + 1), walked along
  // the items_pending index one domain at a time; far enough ahead for this claim and for the
  // claims running next to it, whose domains are skipped below.
  const candidates = await tx.q<{ domain: string; n: number }>(
    `WITH RECURSIVE d(domain, n, total) AS (
       SELECT f.domain, f.n, f.n FROM (
         SELECT domain, (SELECT COUNT(*)::int FROM (SELECT 1 FROM items c WHERE c.request_id = $1 AND c.state = 'pending' AND c.domain = i.domain LIMIT $2 + 1) x) AS n
         FROM items i WHERE i.request_id = $1 AND i.state = 'pending' ORDER BY i.domain LIMIT 1
       ) f
       UNION ALL
       SELECT nx.domain, nx.n, d.total + nx.n FROM d, LATERAL (
         SELECT i.domain, (SELECT COUNT(*)::int FROM (SELECT 1 FROM items c WHERE c.request_id = $1 AND c.state = 'pending' AND c.domain = i.domain LIMIT $2 + 1) x) AS n
         FROM items i WHERE i.request_id = $1 AND i.state = 'pending' AND i.domain > d.domain ORDER BY i.domain LIMIT 1
       ) nx WHERE d.total < $2 * 4
     )
     SELECT domain, n FROM d`,
    [requestId, room],
  );
  const domains: string[] = [];
  let planned = 0;
  let next = 0;
  while (planned < room) {
    // The candidates that fill the room left (a domain that does not fit waits for the next
    // claim, unless nothing is planned yet), tried in one statement; those another claim holds
    // are skipped, and the loop looks further ahead for their share.
    const group: string[] = [];
    let sum = planned;
    for (; next < candidates.length && sum < room; next++) {
      const c = candidates[next] as { domain: string; n: number };
      if (sum > 0 && sum + c.n > room) break;
      group.push(c.domain);
      sum += c.n;
    }
    if (group.length === 0) break;
    const locked = new Set(
      (
        await tx.q<{ domain: string }>('SELECT d AS domain FROM unnest($2::text[]) AS t(d) WHERE pg_try_advisory_xact_lock($1, hashtext($3 || chr(10) || d))', [
          DOMAIN_CLAIM_LOCK,
          group,
          requestId,
        ])
      ).map((r) => r.domain),
    );
    for (const c of candidates.slice(next - group.length, next)) {
      if (!locked.has(c.domain)) continue;
      domains.push(c.domain);
      planned += c.n;
    }
  }
  if (domains.length === 0) return [];
  return tx.q<{ id: number }>(
    "SELECT id FROM items WHERE request_id = $1 AND state = 'pending' AND domain = ANY($2::text[]) ORDER BY domain, id LIMIT $3 FOR UPDATE SKIP LOCKED",
    [requestId, domains, room],
  );
}

export function claimItems(db: PgDatabase, input: ClaimInput): Promise<ClaimedItem[]> {
  return db.tx(async (tx) => {
    const ids: number[] = [];
    const room = () => input.limit - ids.length;
    const take = (rows: Array<{ id: number }>) => {
      for (const r of rows) if (ids.length < input.limit) ids.push(r.id);
    };
    // 1. leases of crashed workers; 2. greylisted items due for their recheck (this worker's
    // own first, anyone's after the grace period); 3. fresh items, grouped by domain.
    take(
      await tx.q<{ id: number }>(
        "SELECT id FROM items WHERE state = 'claimed' AND lease_expires_at < $1 ORDER BY lease_expires_at LIMIT $2 FOR UPDATE SKIP LOCKED",
        [input.now, input.limit],
      ),
    );
    if (room() > 0) {
      const graceCutoff = new Date(input.now.getTime() - input.affinityGraceMs);
      take(
        await tx.q<{ id: number }>(
          `SELECT id FROM items WHERE state = 'recheck' AND not_before <= $1 AND (affinity = $2 OR not_before <= $3)
           ORDER BY not_before LIMIT $4 FOR UPDATE SKIP LOCKED`,
          [input.now, input.affinity, graceCutoff, room()],
        ),
      );
    }
    const queued: string[] = [];
    if (room() > 0) {
      // Only requests that still have pending items: one whose items are all leased must not
      // hide newer requests from the scan.
      const open = await tx.q<{ id: string; state: string }>(
        `SELECT r.id, r.state FROM requests r WHERE r.state IN ('queued', 'running')
           AND EXISTS (SELECT 1 FROM items i WHERE i.request_id = r.id AND i.state = 'pending')
         ORDER BY r.created_at, r.id LIMIT $1`,
        [OPEN_REQUESTS_SCANNED],
      );
      for (const r of open) {
        if (room() <= 0) break;
        const before = ids.length;
        take(await claimDomains(tx, r.id, room()));
        if (r.state === 'queued' && ids.length > before) queued.push(r.id);
      }
    }
    if (ids.length === 0) return [];
    const lease = new Date(input.now.getTime() + input.leaseMs);
    const rows = await tx.q<{
      id: number;
      request_id: string;
      account_id: string;
      email: string;
      domain: string;
      sandbox: boolean;
      attempts: number;
      rechecks: number;
    }>(
      `UPDATE items i SET state = 'claimed', claimed_by = $2, lease_expires_at = $3, attempts = i.attempts + 1
       FROM requests r WHERE r.id = i.request_id AND i.id = ANY($1::bigint[])
       RETURNING i.id, i.request_id, r.account_id, i.email, i.domain, r.sandbox, i.attempts, i.rechecks`,
      [ids, input.owner, lease],
    );
    // Only requests seen queued: a running request's row is left alone, so a claim never waits
    // for the row lock of a result transaction that is moving the request's counters. A queued
    // request whose row another claim holds is being set running by that claim: skip it.
    if (queued.length > 0) {
      await tx.q(
        `UPDATE requests SET state = 'running' WHERE id IN (
           SELECT id FROM requests WHERE id = ANY($1::text[]) AND state = 'queued' FOR UPDATE SKIP LOCKED
         )`,
        [queued],
      );
    }
    const order = new Map(ids.map((id, i) => [id, i]));
    return rows
      .sort((a, b) => (order.get(a.id) ?? 0) - (order.get(b.id) ?? 0))
      .map((r) => ({
        itemId: r.id,
        requestId: r.request_id,
        accountId: r.account_id,
        email: r.email,
        domain: r.domain,
        sandbox: r.sandbox,
        attempts: r.attempts - 1,
        rechecks: r.rechecks,
      }));
  });
}

export async function renewLeases(db: PgDatabase, owner: string, itemIds: readonly number[], until: Date): Promise<number[]> {
  if (itemIds.length === 0) return [];
  const held = await db.q<{ id: number }>("UPDATE items SET lease_expires_at = $3 WHERE id = ANY($1::bigint[]) AND state = 'claimed' AND claimed_by = $2 RETURNING id", [
    itemIds,
    owner,
    until,
  ]);
  const kept = new Set(held.map((r) => Number(r.id)));
  return itemIds.filter((id) => !kept.has(id));
}

export async function releaseClaims(db: PgDatabase, owner: string, itemIds: readonly number[]): Promise<void> {
  if (itemIds.length === 0) return;
  // A recheck that was handed back keeps its recheck state (rechecks > 0); a fresh item goes back to pending.
  await db.q(
    `UPDATE items SET state = CASE WHEN rechecks > 0 THEN 'recheck' ELSE 'pending' END, claimed_by = NULL, lease_expires_at = NULL,
       attempts = GREATEST(attempts - 1, 0)
     WHERE id = ANY($1::bigint[]) AND state = 'claimed' AND claimed_by = $2`,
    [itemIds, owner],
  );
}

interface ItemRow {
  id: number;
  request_id: string;
  email: string;
  state: string;
  billing: ItemBilling;
  account_id: string;
}

export function recordItemResult(db: PgDatabase, input: ItemResultInput): Promise<ItemResultOutcome> {
  return db.tx(async (tx) => {
    // The item row lock serialises two workers finishing the same item (a lease taken over
    // from a worker that was only slow): the second finds it final and changes nothing.
    const item = await tx.one<ItemRow>(
      'SELECT i.id, i.request_id, i.email, i.state, i.billing, r.account_id FROM items i JOIN requests r ON r.id = i.request_id WHERE i.id = $1 FOR UPDATE OF i',
      [input.itemId],
    );
    const nothing: ItemResultOutcome = { recorded: false, finalizedRequest: false, debited: 0, verdict: null };
    if (!item || item.state === 'final') return nothing;
    if (input.kind === 'recheck') {
      await tx.q(
        "UPDATE items SET state = 'recheck', affinity = $2, not_before = $3, rechecks = rechecks + 1, claimed_by = NULL, lease_expires_at = NULL WHERE id = $1",
        [item.id, input.affinity, input.recheckAt],
      );
      return { ...nothing, recorded: true };
    }
    const held = item.billing === 'held';
    const settled = settle(input.result.envelope, held);
    const previous = await history(tx, item.account_id, item.email);
    const stored = finalizeStoredResult(input.result, settled.envelope, previous);
    const h = nextHistory(previous, stored);
    // Every result of a request (and of an account) passes through the same request and
    // account rows. They are touched last, in this one statement, so their row locks are
    // held for one round trip and the COMMIT, not for the whole transaction.
    const credit = held ? 1 : 0;
    const row = (await tx.one<{ final_count: number; open_count: number }>(
      `WITH seq AS (
         UPDATE requests SET final_count = final_count + 1, open_count = open_count - 1 WHERE id = $2 RETURNING final_count, open_count
       ), item AS (
         UPDATE items SET state = 'final', billing = $4, final_seq = (SELECT final_count FROM seq), envelope_status = $5, decision = $6,
           verdict = $7, result_json = $8, claimed_by = NULL, lease_expires_at = NULL WHERE id = $1 RETURNING id
       ), hist AS (
         INSERT INTO address_history (account_id, email, checks, first_checked_at, last_checked_at, last_verdict) VALUES ($3, $9, $10, $11, $12, $13)
         ON CONFLICT (account_id, email) DO UPDATE SET checks = address_history.checks + 1, last_checked_at = excluded.last_checked_at,
           last_verdict = excluded.last_verdict RETURNING 1
       ), led AS (
         INSERT INTO credit_ledger (account_id, kind, credits, request_id, created_at)
         SELECT $3, CASE WHEN $4 = 'debited' THEN 'debit' ELSE 'release' END, $14::int, $2, $15 WHERE $14::int > 0 RETURNING 1
       ), acct AS (
         UPDATE accounts SET credits_held = credits_held - $14::int, credits_debited = credits_debited + CASE WHEN $4 = 'debited' THEN $14::int ELSE 0 END
         WHERE id = $3 AND $14::int > 0 RETURNING 1
       )
       SELECT final_count, open_count FROM seq`,
      [
        item.id,
        item.request_id,
        item.account_id,
        settled.billing,
        stored.envelope.status,
        stored.envelope.decision,
        stored.envelope.verdict,
        JSON.stringify(stored),
        item.email,
        h.checks,
        h.firstCheckedAt,
        h.lastCheckedAt,
        h.lastVerdict,
        credit,
        input.now,
      ],
    )) as { final_count: number; open_count: number };
    const finalizedRequest = row.open_count === 0 && (await finalizeIfDone(tx, item.request_id, input.now, input.retentionDays));
    return { recorded: true, finalizedRequest, debited: settled.billing === 'debited' ? 1 : 0, verdict: stored.envelope.verdict };
  });
}
