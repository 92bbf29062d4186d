/**
 * The item groups behind a request's counters, without counting every item on each status
 * poll or results page (that GROUP BY was 12 % of the server's time in the batch benchmark,
 * BENCHMARKS.md §4). Final items never change, so their groups are summed once per process
 * and then extended by the items finalized since, found through the (request_id, final_seq)
 * index. Open items all share the request's billing; they are `open_count`, split into
 * pending and rechecking by counting the few in recheck.
 */
import type { SqliteContext } from './context.js';
import type { ItemBilling, ItemGroup } from '../billing-rules.js';

/** Requests whose final groups are remembered; the oldest are dropped beyond this. */
const MAX_REQUESTS = 1_000;

interface Seen {
  upToSeq: number;
  groups: Map<string, ItemGroup>;
}

export interface RequestCounts {
  id: string;
  sandbox: number;
  final_count: number;
  open_count: number;
}

export class RequestGroups {
  private readonly seen = new Map<string, Seen>();

  constructor(private readonly ctx: SqliteContext) {}

  /** Call inside one read or write transaction with the request row it was read from. */
  of(r: RequestCounts): ItemGroup[] {
    const rechecking = (this.ctx.stmt("SELECT COUNT(*) AS n FROM items WHERE state = 'recheck' AND request_id = ?").get(r.id) as { n: number }).n;
    const openBilling: ItemBilling = r.sandbox === 1 ? 'none' : 'held';
    const open: ItemGroup[] = [
      { state: 'pending', envelopeStatus: null, decision: null, billing: openBilling, count: r.open_count - rechecking },
      { state: 'recheck', envelopeStatus: null, decision: null, billing: openBilling, count: rechecking },
    ];
    return [...this.final(r), ...open];
  }

  private final(r: RequestCounts): Iterable<ItemGroup> {
    let seen = this.seen.get(r.id);
    if (!seen || seen.upToSeq > r.final_count) {
      seen = { upToSeq: 0, groups: new Map() };
      if (this.seen.size >= MAX_REQUESTS) this.seen.delete(this.seen.keys().next().value as string);
      this.seen.set(r.id, seen);
    }
    if (seen.upToSeq < r.final_count) {
      const added = this.ctx
        .stmt(
          `SELECT envelope_status AS envelopeStatus, decision, billing, COUNT(*) AS count FROM items
           WHERE request_id = ? AND final_seq > ? AND final_seq <= ? GROUP BY envelope_status, decision, billing`,
        )
        .all(r.id, seen.upToSeq, r.final_count) as Array<Omit<ItemGroup, 'state'>>;
      for (const g of added) {
        const key = `${g.envelopeStatus}|${g.decision}|${g.billing}`;
        const group = seen.groups.get(key);
        if (group) group.count += g.count;
        else seen.groups.set(key, { ...g, state: 'final' });
      }
      seen.upToSeq = r.final_count;
    }
    return seen.groups.values();
  }
}
