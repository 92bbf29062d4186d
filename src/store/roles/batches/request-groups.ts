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
import type { ItemBilling, ItemGroup } from '../../billing-rules.js';

/** Requests whose final groups are remembered; the oldest are dropped beyond this. */
const MAX_REQUESTS = 1_000;

export type FinalGroup = Omit<ItemGroup, 'state'>;

export interface RequestCounts {
  id: string;
  sandbox: boolean;
  final_count: number;
  open_count: number;
}

/**
 * The sums of a request's final items up to `upToSeq`. Never changed once made: a view reads one,
 * awaits its query and builds the next from it, so views of one request running at once on one
 * process (pollers, a results page, the creation's replay) each add their own items to the base
 * they read — never to a base another view has already extended (which counted items twice).
 */
export interface CountedGroups {
  readonly upToSeq: number;
  readonly groups: ReadonlyMap<string, Readonly<ItemGroup>>;
}

const NOTHING_COUNTED: CountedGroups = { upToSeq: 0, groups: new Map() };

export class RequestGroups {
  private readonly counted = new Map<string, CountedGroups>();

  /**
   * What is already summed for the request as its row `r` shows it: the items with `final_seq`
   * above `upToSeq` (and up to `final_count`) are to be added. A base newer than the row (a view
   * from an older snapshot) is not used: that view counts from nothing.
   */
  base(r: RequestCounts): CountedGroups {
    const known = this.counted.get(r.id);
    return known && known.upToSeq <= r.final_count ? known : NOTHING_COUNTED;
  }

  /**
   * All groups of the request: those of its final items (`base` with `added`, the items after
   * it, summed in) and its open items. The sums are kept only when they reach further than those
   * already kept, so the remembered sums only ever move forward and never mix two views' counts.
   */
  groups(r: RequestCounts, base: CountedGroups, added: readonly FinalGroup[], rechecking: number): ItemGroup[] {
    const groups = new Map(base.groups);
    for (const g of added) {
      const key = `${g.envelopeStatus}|${g.decision}|${g.billing}`;
      const group = groups.get(key);
      groups.set(key, { ...g, state: 'final', count: g.count + (group?.count ?? 0) });
    }
    this.remember(r.id, { upToSeq: r.final_count, groups });
    const openBilling: ItemBilling = r.sandbox ? 'none' : 'held';
    return [
      ...[...groups.values()].map((g) => ({ ...g })),
      { state: 'pending', envelopeStatus: null, decision: null, billing: openBilling, count: r.open_count - rechecking },
      { state: 'recheck', envelopeStatus: null, decision: null, billing: openBilling, count: rechecking },
    ];
  }

  private remember(id: string, next: CountedGroups): void {
    const known = this.counted.get(id);
    if (known && known.upToSeq >= next.upToSeq) return;
    if (!known && this.counted.size >= MAX_REQUESTS) this.counted.delete(this.counted.keys().next().value as string);
    this.counted.set(id, next);
  }
}
