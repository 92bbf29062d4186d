/**
 * Role: leases. "This node owns this work until its lease lapses" written once, for every kind of
 * work (lease-kinds.ts): renew what an owner holds and learn which leases it lost, hand work back,
 * and take over (or end) the work whose lease lapsed. Each lease names its owner, so a renewal
 * never extends a lease another node took over. The service's one keeper
 * (src/service/leases/lease-keeper.ts) is the only caller that renews.
 *
 * Two nodes taking lapsed work at once take disjoint rows (SKIP LOCKED on PostgreSQL; one writer
 * at a time on SQLite).
 */
import { list } from '../sql.js';
import type { Db, Tx } from '../sql.js';
import type { BulkWrites } from './dialect-parts.js';
import { leaseTables } from './lease-kinds.js';
import type { LeaseId, LeaseKind, LeaseTable, TakeableKind, Taken } from './lease-kinds.js';

export interface LeasesRole {
  /** Extends the leases `owner` holds to `until`; returns the ids it no longer holds (taken over, ended, or finished). */
  renew<K extends LeaseKind>(kind: K, owner: string, ids: ReadonlyArray<LeaseId<K>>, until: Date): Promise<Array<LeaseId<K>>>;
  /** Hands work back: its lease is over at `now`, and the next taker has it at once (batch items go back to the queue). */
  release<K extends LeaseKind>(kind: K, owner: string, ids: ReadonlyArray<LeaseId<K>>, now: Date): Promise<void>;
  /**
   * Takes over at most `limit` works whose lease lapsed before `now`, oldest lease first, leased
   * to `owner` until `until`; lapsed ones nobody may take over are ended on the way (a check no
   * caller was told goes on is failed and released).
   */
  takeLapsed<K extends TakeableKind>(kind: K, input: { owner: string; now: Date; until: Date; limit: number }): Promise<Array<Taken<K>>>;
  /** Ends every lapsed work of the kind nobody may take over (an import whose process died: failed); returns how many. */
  endLapsed(kind: LeaseKind, now: Date): Promise<number>;
}

/** Lapsed rows ended per transaction by `endLapsed`. */
const END_CHUNK = 500;

export function leasesRole(db: Db, bulk: BulkWrites): LeasesRole {
  const tables = leaseTables(bulk);
  const table = <K extends LeaseKind>(kind: K): LeaseTable<K> => tables[kind] as LeaseTable<K>;

  /** Ends up to `limit` lapsed rows of `t` that may not be taken over; returns how many. */
  async function endSome<K extends LeaseKind>(tx: Tx, t: LeaseTable<K>, now: Date, limit: number): Promise<number> {
    if (!t.end) return 0;
    const resumable = t.resumable?.(now);
    const rows = await tx.all<{ id: LeaseId<K> }>(
      `SELECT ${t.id} AS id FROM ${t.table} WHERE ${t.live} AND ${t.expires} < ?${resumable ? ` AND NOT (${resumable.sql})` : ''}
       ORDER BY ${t.expires} LIMIT ?${tx.dialect.forUpdateSkipLocked}`,
      [now, ...(resumable?.params ?? []), limit],
    );
    if (rows.length > 0) await t.end(tx, rows.map((r) => r.id), now);
    return rows.length;
  }

  return {
    async renew(kind, owner, ids, until) {
      if (ids.length === 0) return [];
      const t = table(kind);
      const held = await db.all<{ id: string | number }>(
        `UPDATE ${t.table} SET ${t.expires} = ? WHERE ${t.id} ${db.dialect.inList} AND ${t.live} AND ${t.owner} = ? RETURNING ${t.id} AS id`,
        [until, list(ids), owner],
      );
      // Ids compared as text: PostgreSQL hands a bigint back as it was declared, SQLite as a number.
      const kept = new Set(held.map((r) => String(r.id)));
      return ids.filter((id) => !kept.has(String(id)));
    },

    async release(kind, owner, ids, now) {
      if (ids.length === 0) return;
      const t = table(kind);
      await db.run(
        `UPDATE ${t.table} SET ${t.owner} = NULL, ${t.expires} = ?${t.releaseSet ? `, ${t.releaseSet}` : ''}
         WHERE ${t.id} ${db.dialect.inList} AND ${t.live} AND ${t.owner} = ?`,
        [t.releaseClears ? null : now, list(ids), owner],
      );
    },

    takeLapsed: (kind, input) =>
      db.write(async (tx) => {
        const t = table(kind);
        await endSome(tx, t, input.now, input.limit);
        const resumable = t.resumable?.(input.now);
        if (!resumable || !t.load) return [];
        const rows = await tx.all<{ id: LeaseId<typeof kind> }>(
          `SELECT ${t.id} AS id FROM ${t.table} WHERE ${t.live} AND ${t.expires} < ? AND (${resumable.sql})
           ORDER BY ${t.expires} LIMIT ?${tx.dialect.forUpdateSkipLocked}`,
          [input.now, ...resumable.params, input.limit],
        );
        if (rows.length === 0) return [];
        const ids = rows.map((r) => r.id);
        await tx.run(`UPDATE ${t.table} SET ${t.owner} = ?, ${t.expires} = ? WHERE ${t.id} ${tx.dialect.inList}`, [input.owner, input.until, list(ids)]);
        await t.onTaken?.(tx, ids);
        return t.load(tx, ids);
      }),

    async endLapsed(kind, now) {
      const t = table(kind);
      let ended = 0;
      for (;;) {
        const some = await db.write((tx) => endSome(tx, t, now, END_CHUNK));
        ended += some;
        if (some < END_CHUNK) return ended;
      }
    },
  };
}
