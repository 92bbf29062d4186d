/**
 * Role: stored lists (`presend lists import`, `POST /v1/requests {listId}`). An import is
 * `importing` until its last entries are in, then `ready` (or `failed`); entries keep their
 * import order. Entries are appended in chunks, each its own transaction, so a large import never
 * holds one long transaction. An import is leased (kind `listImport` of leases.ts) by the process
 * running it, whose keeper renews the lease: an import whose process died (kill -9, a crash)
 * lets it lapse, and is marked failed by the next serving process, purge or listing; the retention
 * purge then deletes its entries in small transactions. An uploaded file whose import runs from
 * its stored copy is not failed but taken over and run again by a serving process, a few times at
 * most (lease-kinds.ts).
 */
import { randomUUID } from 'node:crypto';
import type { Db } from '../sql.js';
import type { LeaseGrant } from './lease-grant.js';
import type { BulkWrites } from './dialect-parts.js';

/** Stored lists (`presend lists import`, `POST /v1/requests {listId}`). */
export interface ListsRole {
  /** `lease`: the importing process's lease (renewed by its keeper, LeasesRole); without one the list is never failed as lapsed. */
  createList(input: { accountId: string; name: string | null; now: Date; lease?: LeaseGrant }): Promise<ListRecord>;
  /**
   * Appends a chunk; throws when the list is no longer importing. `at`: the position the chunk must start at — when another run has moved the
   * list on or ended it meanwhile (an import taken over after a stall), it throws `ImportTakenOver`
   * and appends nothing.
   */
  appendListEntries(listId: string, emails: readonly string[], at?: number): Promise<void>;
  /** Ends an import still under way; a list already ended stays as it is (asked to fail: returned as it is; asked to be ready: throws). */
  finishListImport(listId: string, state: 'ready' | 'failed'): Promise<ListRecord>;
  /** Null for an unknown list or one of another account. */
  getList(accountId: string, listId: string): Promise<ListRecord | null>;
  /** The entries at positions [fromPosition, fromPosition + limit), in import order (a list's positions run 0 … entries − 1). */
  readListSlice(listId: string, fromPosition: number, limit: number): Promise<Array<{ position: number; email: string }>>;
  /**
   * Imports a list: created `importing`, its entries appended chunk by chunk as they come, then
   * `ready`. An empty import, one longer than `maxEntries`, or one whose entries fail to arrive,
   * ends `failed` and throws `ListImportFailed` (src/store/roles/lists.ts) naming the list.
   * `lease`: the importing process's lease, handed to its keeper by `onCreated`.
   */
  importList(input: {
    accountId: string;
    name: string | null;
    now: Date;
    entries: AsyncIterable<readonly string[]> | Iterable<readonly string[]>;
    maxEntries?: number;
    lease?: LeaseGrant;
    onCreated?(list: ListRecord): void;
  }): Promise<ListRecord>;
}

export type ListState = 'importing' | 'ready' | 'failed';

export interface ListRecord {
  id: string;
  accountId: string;
  name: string | null;
  state: ListState;
  entries: number;
  createdAt: string;
}

export interface ListRow {
  id: string;
  account_id: string;
  name: string | null;
  state: ListState;
  entries: number;
  created_at: string;
}

export const toList = (r: ListRow): ListRecord => ({
  id: r.id,
  accountId: r.account_id,
  name: r.name,
  state: r.state,
  entries: r.entries,
  createdAt: r.created_at,
});

/** Entries appended per transaction by `importList`. */
const IMPORT_CHUNK = 5_000;

export function listsRole(db: Db, bulk: BulkWrites): ListsRole {
  const finish = async (listId: string, state: 'ready' | 'failed'): Promise<ListRecord> => {
    // Only an import still under way ends here: one whose lease lapsed was marked failed meanwhile,
    // and one another run finished stays as it ended (failing it again changes nothing).
    const row = await db.get<ListRow>("UPDATE lists SET state = ?, lease_expires_at = NULL, lease_owner = NULL WHERE id = ? AND state = 'importing' RETURNING *", [state, listId]);
    if (row) return toList(row);
    const ended = state === 'failed' ? await db.get<ListRow>('SELECT * FROM lists WHERE id = ?', [listId]) : undefined;
    if (!ended) throw new Error(`list ${listId} does not exist or is no longer importing`);
    return toList(ended);
  };
  const append = (listId: string, emails: readonly string[], at?: number): Promise<void> =>
    db.write(async (tx) => {
      // Positions continue from the list row's count, locked (PostgreSQL) while this chunk goes in.
      const row = await tx.get<{ entries: number; state: string }>(`SELECT entries, state FROM lists WHERE id = ?${tx.dialect.forUpdate()}`, [listId]);
      if (!row) throw new Error(`list ${listId} does not exist`);
      // A run that knows where its chunk goes and finds the list elsewhere, or no longer importing,
      // was taken over after a stall (the run that took over may have finished it already).
      if (at !== undefined && (row.state !== 'importing' || Number(row.entries) !== at)) throw new ImportTakenOver(listId);
      // A lapsed import was marked failed meanwhile: its late entries are not added to it.
      if (row.state !== 'importing') throw new Error(`list ${listId} is ${row.state}, not importing (its lease lapsed)`);
      await bulk.insertListEntries(tx, listId, row.entries, emails);
      await tx.run('UPDATE lists SET entries = entries + ? WHERE id = ?', [emails.length, listId]);
    });

  const create = async (input: { accountId: string; name: string | null; now: Date; lease?: LeaseGrant }): Promise<ListRecord> => {
    const row = await db.get<ListRow>(
      "INSERT INTO lists (id, account_id, name, state, created_at, lease_owner, lease_expires_at) VALUES (?, ?, ?, 'importing', ?, ?, ?) RETURNING *",
      [randomUUID(), input.accountId, input.name, input.now, input.lease?.owner ?? null, input.lease?.until ?? null],
    );
    return toList(row as ListRow);
  };

  return {
    createList: create,
    appendListEntries: append,
    finishListImport: finish,
    async importList(input) {
      const created = await create(input);
      input.onCreated?.(created);
      try {
        let entries = 0;
        for await (const chunk of input.entries) {
          entries += chunk.length;
          if (input.maxEntries !== undefined && entries > input.maxEntries) throw new ListTooLarge(input.maxEntries);
          for (let i = 0; i < chunk.length; i += IMPORT_CHUNK) await append(created.id, chunk.slice(i, i + IMPORT_CHUNK));
        }
        if (entries === 0) throw new Error('no addresses in the file');
        return await finish(created.id, 'ready');
      } catch (err) {
        await finish(created.id, 'failed');
        throw new ListImportFailed(created.id, err);
      }
    },

    getList: async (accountId, listId) => {
      const row = await db.get<ListRow>('SELECT * FROM lists WHERE id = ? AND account_id = ?', [listId, accountId]);
      return row ? toList(row) : null;
    },

    // A list's positions are 0 … entries − 1 (each append continues from the count), so a slice is
    // the closed range [from, from + limit): an index range scan whatever the table's statistics.
    // Open-ended (`position >= from … LIMIT`), PostgreSQL planned it without statistics as a
    // bitmap scan of the rest of the list and a sort: 314 ms a slice at 600,000 of 1,000,000.
    readListSlice: async (listId, fromPosition, limit) =>
      (
        await db.all<{ position: number; email: string }>('SELECT position, email FROM list_entries WHERE list_id = ? AND position >= ? AND position < ? ORDER BY position', [
          listId,
          fromPosition,
          fromPosition + limit,
        ])
      ).map((r) => ({ position: Number(r.position), email: r.email })),
  };
}

/** An import passed the list size cap (PRESEND_LIST_MAX_ENTRIES). */
export class ListTooLarge extends Error {
  constructor(readonly maxEntries: number) {
    super(`the list has more than ${maxEntries.toLocaleString('en-US')} entries, the most a list may have (PRESEND_LIST_MAX_ENTRIES)`);
    this.name = 'ListTooLarge';
  }
}

/** Another run of the import moved the list on (it was taken over after a stall): this run stops, and leaves the list to it. */
export class ImportTakenOver extends Error {
  constructor(readonly listId: string) {
    super(`the import of list ${listId} was taken over by another run`);
    this.name = 'ImportTakenOver';
  }
}

/** An import that stopped: its list is marked failed; `cause` says why. */
export class ListImportFailed extends Error {
  constructor(
    readonly listId: string,
    cause: unknown,
  ) {
    super(`list import failed (list ${listId} is marked failed): ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = 'ListImportFailed';
  }
}
