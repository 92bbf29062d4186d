/**
 * Role: stored lists (`presend lists import`, `POST /v1/requests {listId}`). An import is
 * `importing` until its last entries are in, then `ready` (or `failed`); entries keep their
 * import order. Entries are appended in chunks, each its own transaction, so a large import never
 * holds one long transaction.
 */
import { randomUUID } from 'node:crypto';
import type { ListsRole } from '../backend.js';
import { toList } from '../rows.js';
import type { ListRow } from '../rows.js';
import type { Db } from '../sql.js';
import type { ListRecord } from '../store.js';
import type { BulkWrites } from './dialect-parts.js';

/** Entries appended per transaction by `importList`. */
const IMPORT_CHUNK = 5_000;

export function listsRole(db: Db, bulk: BulkWrites): ListsRole {
  const finish = async (listId: string, state: 'ready' | 'failed'): Promise<ListRecord> => {
    const row = await db.get<ListRow>('UPDATE lists SET state = ? WHERE id = ? RETURNING *', [state, listId]);
    if (!row) throw new Error(`list ${listId} does not exist`);
    return toList(row);
  };
  const append = (listId: string, emails: readonly string[]): Promise<void> =>
    db.write(async (tx) => {
      // Positions continue from the list row's count, locked (PostgreSQL) while this chunk goes in.
      const row = await tx.get<{ entries: number }>(`SELECT entries FROM lists WHERE id = ?${tx.dialect.forUpdate()}`, [listId]);
      if (!row) throw new Error(`list ${listId} does not exist`);
      await bulk.insertListEntries(tx, listId, row.entries, emails);
      await tx.run('UPDATE lists SET entries = entries + ? WHERE id = ?', [emails.length, listId]);
    });

  const create = async (input: { accountId: string; name: string | null; now: Date }): Promise<ListRecord> => {
    const row = await db.get<ListRow>("INSERT INTO lists (id, account_id, name, state, created_at) VALUES (?, ?, ?, 'importing', ?) RETURNING *", [
      randomUUID(),
      input.accountId,
      input.name,
      input.now,
    ]);
    return toList(row as ListRow);
  };

  return {
    createList: create,
    appendListEntries: append,
    finishListImport: finish,

    async importList(input) {
      const created = await create(input);
      try {
        let entries = 0;
        for await (const chunk of input.entries) {
          for (let i = 0; i < chunk.length; i += IMPORT_CHUNK) await append(created.id, chunk.slice(i, i + IMPORT_CHUNK));
          entries += chunk.length;
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

    readListEntries: async (listId) => (await db.all<{ email: string }>('SELECT email FROM list_entries WHERE list_id = ? ORDER BY position', [listId])).map((r) => r.email),
  };
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
