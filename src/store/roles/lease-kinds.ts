/**
 * Role: leases (the kinds of leased work). Each kind of work a node owns until its lease lapses is
 * described here once: where its lease lives (table, id, owner and expiry columns), which rows are
 * still work under way, which lapsed ones another node may take over, and what ending, taking or
 * handing back one means for it. The SQL that renews, releases and takes leases is written once,
 * over these descriptions (leases.ts); batch items are taken by the claim of each dialect
 * (src/store/{sqlite,postgres}/claim.ts), which also takes their lapsed leases.
 */
import type { VerificationRecord, VerificationRow } from './verifications.js';
import { failLocked, toVerificationRecord } from './verifications.js';
import { list } from '../sql.js';
import type { Param, Tx } from '../sql.js';
import type { BulkWrites } from './dialect-parts.js';
import { RESUMABLE_IMPORT } from './list-files.js';

/** The fill of a list batch, taken over where it stopped. */
export interface LapsedFill {
  requestId: string;
  listId: string;
  position: number;
}

/** An import from an uploaded file, taken over to run again from its stored copy (its first `entries` are in the list). */
export interface LapsedImport {
  listId: string;
  accountId: string;
  entries: number;
  layoutJson: string;
  sizeBytes: number;
}

/** Every kind of leased work: its id, and what taking a lapsed one over hands its new owner (never: not taken this way). */
export interface LeaseKinds {
  /** A batch item (items.claimed_by); taken by the claim. */
  item: { id: number; taken: never };
  /** A single check (`POST /v1/verify`). */
  check: { id: string; taken: VerificationRecord };
  /** The fill of a batch over a stored list (requests.fill_*). */
  listFill: { id: string; taken: LapsedFill };
  /** The import of a list (lists.lease_*). */
  listImport: { id: string; taken: LapsedImport };
  /** A feedback file's import (`presend feedback import`): never taken over, ended failed once lapsed. */
  feedbackImport: { id: string; taken: never };
}

export type LeaseKind = keyof LeaseKinds;
export type LeaseId<K extends LeaseKind> = LeaseKinds[K]['id'];
export type Taken<K extends LeaseKind> = LeaseKinds[K]['taken'];
/** The kinds whose lapsed leases `takeLapsed` hands over. */
export type TakeableKind = { [K in LeaseKind]: [Taken<K>] extends [never] ? never : K }[LeaseKind];

/** Where one kind's leases live and what its lapsed ones become. Fragments are SQL over the table's own columns. */
export interface LeaseTable<K extends LeaseKind> {
  table: string;
  id: string;
  owner: string;
  expires: string;
  /** Rows whose work is under way: only those hold a lease (a finished one is lost to its owner). */
  live: string;
  /** Of the lapsed rows, those another node may take over; the others are ended (`end`). Absent: none may. */
  resumable?(now: Date): { sql: string; params: Param[] };
  /** Ends lapsed rows nobody may take over (failed, their holds released), in the transaction that found them. */
  end?(tx: Tx, ids: Array<LeaseId<K>>, now: Date): Promise<void>;
  /** What else a takeover changes (a run counted, what the last run left cleared). */
  onTaken?(tx: Tx, ids: Array<LeaseId<K>>): Promise<void>;
  /** What a taken row hands its new owner, in the order of `ids`. */
  load?(tx: Tx, ids: Array<LeaseId<K>>): Promise<Array<Taken<K>>>;
  /** Columns a release sets beside clearing the lease (`col = …, …`). */
  releaseSet?: string;
  /** Whether a release leaves the expiry NULL (not leased at all) rather than lapsed now. */
  releaseClears?: boolean;
}

/** Checks still running this long after they started are failed, not taken over again (a check that keeps its processes from finishing it). */
export const STALE_CHECK_MS = 60 * 60 * 1000;

/** What a lapsed list import leaves in its file record (the dashboard shows it). */
const LAPSED_IMPORT = 'the import stopped before its end (its process ended); import the file again';

export type LeaseTables = { [K in LeaseKind]: LeaseTable<K> };

export function leaseTables(bulk: BulkWrites): LeaseTables {
  return {
    item: {
      table: 'items',
      id: 'id',
      owner: 'claimed_by',
      expires: 'lease_expires_at',
      live: "state = 'claimed'",
      // A recheck handed back keeps its recheck state (rechecks > 0); a fresh item goes back to pending, its claim not counted.
      releaseSet: "state = CASE WHEN rechecks > 0 THEN 'recheck' ELSE 'pending' END, attempts = CASE WHEN attempts > 0 THEN attempts - 1 ELSE 0 END",
      releaseClears: true,
    },

    check: {
      table: 'verifications',
      id: 'id',
      owner: 'lease_owner',
      expires: 'lease_expires_at',
      live: "state = 'running'",
      // Only a check whose caller was told it goes on (a 202) runs again: one whose caller got an
      // error or nothing is failed and released, never billed unseen. One running for an hour is failed too.
      resumable: (now) => ({ sql: 'resumable AND created_at >= ?', params: [new Date(now.getTime() - STALE_CHECK_MS)] }),
      async end(tx, ids, now) {
        const rows = await tx.all<VerificationRow>(`SELECT * FROM verifications WHERE id ${tx.dialect.inList}`, [list(ids)]);
        for (const row of rows) await failLocked(tx, bulk, row, now);
      },
      load: async (tx, ids) => {
        const rows = await tx.all<VerificationRow>(`SELECT * FROM verifications WHERE id ${tx.dialect.inList}`, [list(ids)]);
        return rows.sort((a, b) => a.created_at.localeCompare(b.created_at)).map(toVerificationRecord);
      },
    },

    listFill: {
      table: 'requests',
      id: 'id',
      owner: 'fill_lease_owner',
      expires: 'fill_lease_expires_at',
      live: 'fill_position IS NOT NULL',
      // Every lapsed fill is resumed where it stopped.
      resumable: () => ({ sql: 'TRUE', params: [] }),
      load: async (tx, ids) => {
        const rows = await tx.all<{ id: string; list_id: string; fill_position: number }>(`SELECT id, list_id, fill_position FROM requests WHERE id ${tx.dialect.inList}`, [list(ids)]);
        return rows.map((r) => ({ requestId: r.id, listId: r.list_id, position: Number(r.fill_position) }));
      },
    },

    listImport: {
      table: 'lists',
      id: 'id',
      owner: 'lease_owner',
      expires: 'lease_expires_at',
      live: "state = 'importing'",
      // An uploaded file whose column is picked runs again from its stored copy, a few times at
      // most; any other import (kill -9 of `presend lists import`) ends failed.
      resumable: () => ({ sql: `EXISTS (SELECT 1 FROM list_files f WHERE f.list_id = lists.id AND ${RESUMABLE_IMPORT})`, params: [] }),
      async end(tx, ids) {
        await tx.run(`UPDATE lists SET state = 'failed', lease_expires_at = NULL, lease_owner = NULL WHERE id ${tx.dialect.inList}`, [list(ids)]);
        await tx.run(`UPDATE list_files SET error = ? WHERE list_id ${tx.dialect.inList} AND error IS NULL`, [LAPSED_IMPORT, list(ids)]);
      },
      async onTaken(tx, ids) {
        await tx.run(`UPDATE list_files SET import_attempts = import_attempts + 1, bad_rows = 0 WHERE list_id ${tx.dialect.inList}`, [list(ids)]);
        await tx.run(`DELETE FROM list_bad_rows WHERE list_id ${tx.dialect.inList}`, [list(ids)]);
      },
      load: async (tx, ids) =>
        (
          await tx.all<{ id: string; account_id: string; entries: number; layout_json: string; size_bytes: number }>(
            `SELECT l.id, l.account_id, l.entries, f.layout_json, f.size_bytes FROM lists l JOIN list_files f ON f.list_id = l.id WHERE l.id ${tx.dialect.inList}`,
            [list(ids)],
          )
        ).map((r) => ({ listId: r.id, accountId: r.account_id, entries: Number(r.entries), layoutJson: r.layout_json, sizeBytes: Number(r.size_bytes) })),
    },

    feedbackImport: {
      table: 'feedback_imports',
      id: 'id',
      owner: 'lease_owner',
      expires: 'lease_expires_at',
      live: "state = 'running'",
      // Its file is on the machine of the process that died: the import ends failed; the chunks it
      // recorded stay, and running it again records only what is missing (docs/feedback.md).
      async end(tx, ids, now) {
        await tx.run(`UPDATE feedback_imports SET state = 'failed', finished_at = ?, lease_expires_at = NULL, lease_owner = NULL WHERE id ${tx.dialect.inList}`, [now, list(ids)]);
      },
    },
  };
}
