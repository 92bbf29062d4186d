/**
 * Role: batches (their counters). The item groups behind a request's counters, without counting every item on each status
 * poll or results page (that GROUP BY was 12 % of the SQLite server's time in the batch
 * benchmark, BENCHMARKS.md §4, and 3–6 ms per poll of a 10,000-item batch on PostgreSQL).
 * Final items never change, so their groups are summed once per process and then extended by
 * the items finalized since — `final_seq` in (counted, final_count], through the
 * (request_id, final_seq) index. Every item with a sequence number up to the request row's
 * `final_count` is final in any snapshot that shows that row (the number and the item are
 * written by one transaction). Open items all share the request's billing (held, or none for a
 * sandbox request); they are `open_count`, split into pending and rechecking by counting the
 * few in recheck. Each store runs the two small queries; this class keeps the sums.
 */
import type { ItemBilling, ItemGroup } from './billing-rules.js';

/** Requests whose final groups are remembered; the oldest are dropped beyond this. */
const MAX_REQUESTS = 1_000;

export type FinalGroup = Omit<ItemGroup, 'state'>;

export interface RequestCounts {
  id: string;
  sandbox: boolean;
  final_count: number;
  open_count: number;
}

interface Seen {
  upToSeq: number;
  groups: Map<string, ItemGroup>;
}

export class RequestGroups {
  private readonly seen = new Map<string, Seen>();

  /** Items with `final_seq` above this (and up to `final_count`) are not summed yet. */
  countedUpTo(r: RequestCounts): number {
    const seen = this.seen.get(r.id);
    return seen && seen.upToSeq <= r.final_count ? seen.upToSeq : 0;
  }

  /** All groups of the request: those of its final items, with `added` (the items after `countedUpTo`) summed in, and its open items. */
  groups(r: RequestCounts, added: readonly FinalGroup[], rechecking: number): ItemGroup[] {
    let seen = this.seen.get(r.id);
    if (!seen || seen.upToSeq > r.final_count) {
      seen = { upToSeq: 0, groups: new Map() };
      if (this.seen.size >= MAX_REQUESTS) this.seen.delete(this.seen.keys().next().value as string);
      this.seen.set(r.id, seen);
    }
    for (const g of added) {
      const key = `${g.envelopeStatus}|${g.decision}|${g.billing}`;
      const group = seen.groups.get(key);
      if (group) group.count += g.count;
      else seen.groups.set(key, { ...g, state: 'final' });
    }
    seen.upToSeq = r.final_count;
    const openBilling: ItemBilling = r.sandbox ? 'none' : 'held';
    return [
      ...seen.groups.values(),
      { state: 'pending', envelopeStatus: null, decision: null, billing: openBilling, count: r.open_count - rechecking },
      { state: 'recheck', envelopeStatus: null, decision: null, billing: openBilling, count: rechecking },
    ];
  }
}
