/**
 * Role: work queue (the claim, PostgreSQL). The claim of the work queue on PostgreSQL (src/store/backend.ts WorkQueueRole.claim): items
 * leased with FOR UPDATE SKIP LOCKED, so two workers never take one item and neither waits for
 * the other; pending items whole domains at a time, concurrent claims taking disjoint domains.
 * Its own statements use PostgreSQL's numbered parameters (a domain and a request id recur).
 *
 * Lock order: item rows first, then (only for a queued request) the request row.
 */
import type { Tx } from '../sql.js';
import type { ClaimedItem, ClaimInput } from '../roles/work-queue.js';
import { toClaimedItems } from '../roles/index.js';

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
  const candidates = await tx.all<{ domain: string; n: number }>(
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
    // The candidates that fill the room left, tried in one statement; those another claim holds
    // are skipped, and the loop looks further ahead for their share. A domain that does not fit
    // waits for the next claim, unless it would leave most of the room empty: then it is split
    // (LIMIT below). Otherwise, with domains a little larger than the room (1,003 addresses
    // each over 1,000 items a claim), every other claim took only a domain's remainder.
    const group: string[] = [];
    let sum = planned;
    for (; next < candidates.length && sum < room; next++) {
      const c = candidates[next] as { domain: string; n: number };
      if (sum > 0 && sum + c.n > room && room - sum < room / 2) break;
      group.push(c.domain);
      sum += c.n;
    }
    if (group.length === 0) break;
    const locked = new Set(
      (
        await tx.all<{ domain: string }>('SELECT d AS domain FROM unnest($2::text[]) AS t(d) WHERE pg_try_advisory_xact_lock($1, hashtext($3 || chr(10) || d))', [
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
  return tx.all<{ id: number }>(
    "SELECT id FROM items WHERE request_id = $1 AND state = 'pending' AND domain = ANY($2::text[]) ORDER BY domain, id LIMIT $3 FOR UPDATE SKIP LOCKED",
    [requestId, domains, room],
  );
}

export async function claimPostgres(tx: Tx, input: ClaimInput): Promise<ClaimedItem[]> {
  const ids: number[] = [];
  const room = () => input.limit - ids.length;
  const take = (rows: Array<{ id: number }>) => {
    for (const r of rows) if (ids.length < input.limit) ids.push(r.id);
  };
  // 1. leases of crashed workers; 2. greylisted items due for their recheck (this worker's
  // own first, anyone's after the grace period); 3. fresh items, grouped by domain.
  take(
    await tx.all<{ id: number }>(
      "SELECT id FROM items WHERE state = 'claimed' AND lease_expires_at < $1 ORDER BY lease_expires_at LIMIT $2 FOR UPDATE SKIP LOCKED",
      [input.now, input.limit],
    ),
  );
  if (room() > 0) {
    const graceCutoff = new Date(input.now.getTime() - input.affinityGraceMs);
    take(
      await tx.all<{ id: number }>(
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
    const open = await tx.all<{ id: string; state: string }>(
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
  const rows = await tx.all<{
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
    await tx.all(
      `UPDATE requests SET state = 'running' WHERE id IN (
         SELECT id FROM requests WHERE id = ANY($1::text[]) AND state = 'queued' FOR UPDATE SKIP LOCKED
       )`,
      [queued],
    );
  }
  return toClaimedItems(ids, rows);
}
