/**
 * Role: the files lists were uploaded from (kept, chunk by chunk, so a batch's results can be
 * written back into the owner's own file on any node, and an import whose node died can run
 * again from them: kind `listImport` of lease-kinds.ts) and the rows they could not use.
 */
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import type { Db } from '../sql.js';
import type { ListState } from './lists.js';
import type { LeaseGrant } from './lease-grant.js';

/** The files lists were uploaded from (kept to write results back into them), and the rows they could not use. */
export interface ListFilesRole {
  attachFile(input: { listId: string; accountId: string; fileName: string; uploadedBy: string; now: Date }): Promise<void>;
  /** Chunks are numbered from 0 in file order; `base64` is the chunk's bytes. */
  appendFileChunk(listId: string, seq: number, base64: string): Promise<void>;
  describeFile(listId: string, input: { sizeBytes: number; layoutJson: string | null; columnChoices: ColumnChoice[] | null }): Promise<void>;
  /**
   * Takes the pending column choice: true for the one caller that clears it (and starts the
   * import, leased to it by `lease`), false when there was none (already chosen).
   */
  takeColumnChoice(accountId: string, listId: string, layoutJson: string, lease: LeaseGrant): Promise<boolean>;
  /** Counts every bad row; keeps the first `keep` of a list in all. */
  recordBadRows(listId: string, rows: readonly BadRow[], keep: number): Promise<void>;
  recordImportError(listId: string, error: string, line: number | null): Promise<void>;
  /** The file's bytes, chunk after chunk. */
  readFile(listId: string): AsyncIterable<Buffer>;
  /** Null for an unknown list, one of another account, or one not uploaded from a file. */
  getFile(accountId: string, listId: string): Promise<ListFile | null>;
  badRows(listId: string, limit: number): Promise<BadRow[]>;
  /** Newest first, with their files. */
  listLists(accountId: string, limit: number): Promise<ListOverview[]>;
  /** The list, its entries and its file; false for an unknown list or another account's. */
  deleteList(accountId: string, listId: string): Promise<boolean>;
}

/** One column an owner can pick as the address column of an uploaded file. */
export interface ColumnChoice {
  /** 0-based. */
  index: number;
  /** The header cell, or "column N" when the file has no header. */
  label: string;
  /** A few cells of the column, to recognise it by. */
  samples: string[];
}

/** The file a list was uploaded from. */
export interface ListFile {
  listId: string;
  accountId: string;
  fileName: string;
  sizeBytes: number;
  /** The layout the reader found (src/files), as JSON; null until the file's head was read. */
  layoutJson: string | null;
  /** Set while the owner has to pick the address column; null otherwise. */
  columnChoices: ColumnChoice[] | null;
  badRows: number;
  /** Why the file could not be read, and where; null when it could. */
  error: string | null;
  errorLine: number | null;
  uploadedBy: string;
  createdAt: string;
}

/** A row of an uploaded file whose address cell is empty or not an address. */
export interface BadRow {
  line: number;
  value: string;
  problem: string;
}

/** A list with the file it came from, if any. */
export interface ListOverview {
  id: string;
  name: string | null;
  state: ListState;
  entries: number;
  createdAt: string;
  file: ListFile | null;
}

interface ListFileRow {
  list_id: string;
  account_id: string;
  file_name: string;
  size_bytes: number;
  layout_json: string | null;
  column_choices_json: string | null;
  bad_rows: number;
  error: string | null;
  error_line: number | null;
  uploaded_by: string;
  created_at: string;
}

const toListFile = (r: ListFileRow): ListFile => ({
  listId: r.list_id,
  accountId: r.account_id,
  fileName: r.file_name,
  sizeBytes: Number(r.size_bytes),
  layoutJson: r.layout_json,
  columnChoices: r.column_choices_json ? (JSON.parse(r.column_choices_json) as ColumnChoice[]) : null,
  badRows: Number(r.bad_rows),
  error: r.error,
  errorLine: r.error_line,
  uploadedBy: r.uploaded_by,
  createdAt: r.created_at,
});

/** List entries deleted per transaction by `deleteList`. */
const DELETE_CHUNK = 5_000;

/** Chunks read per query while a file streams back. */
const CHUNKS_PER_READ = 16;

/** Runs of an import from a stored file (the first, and takeovers after its process died) before it is failed. */
export const MAX_IMPORT_ATTEMPTS = 3;

/** A lapsed import that can run again from its stored file: its column is picked and it has runs left (SQL over `lists l` joined with `list_files f`). */
export const RESUMABLE_IMPORT = `f.layout_json IS NOT NULL AND f.column_choices_json IS NULL AND f.import_attempts < ${MAX_IMPORT_ATTEMPTS}`;

export function listFilesRole(db: Db): ListFilesRole {
  return {
    async attachFile(input) {
      await db.run('INSERT INTO list_files (list_id, account_id, file_name, uploaded_by, created_at) VALUES (?, ?, ?, ?, ?)', [
        input.listId,
        input.accountId,
        input.fileName,
        input.uploadedBy,
        input.now,
      ]);
    },

    async appendFileChunk(listId, seq, base64) {
      await db.run('INSERT INTO list_file_chunks (list_id, seq, data) VALUES (?, ?, ?)', [listId, seq, base64]);
    },

    async describeFile(listId, input) {
      await db.run('UPDATE list_files SET size_bytes = ?, layout_json = ?, column_choices_json = ? WHERE list_id = ?', [
        input.sizeBytes,
        input.layoutJson,
        input.columnChoices ? JSON.stringify(input.columnChoices) : null,
        listId,
      ]);
    },

    takeColumnChoice: (accountId, listId, layoutJson, lease) =>
      db.write(async (tx) => {
        const took = await tx.run(
          'UPDATE list_files SET column_choices_json = NULL, layout_json = ?, import_attempts = 1 WHERE list_id = ? AND account_id = ? AND column_choices_json IS NOT NULL',
          [layoutJson, listId, accountId],
        );
        if (took !== 1) return false;
        // The import runs from here, leased to the taker (renewed by its keeper).
        await tx.run("UPDATE lists SET lease_owner = ?, lease_expires_at = ? WHERE id = ? AND state = 'importing'", [lease.owner, lease.until, listId]);
        return true;
      }),

    recordBadRows: (listId, rows, keep) =>
      db.write(async (tx) => {
        if (rows.length === 0) return;
        const row = await tx.get<{ bad_rows: number }>(`SELECT bad_rows FROM list_files WHERE list_id = ?${tx.dialect.forUpdate()}`, [listId]);
        const room = Math.max(0, keep - Number(row?.bad_rows ?? 0));
        for (const bad of rows.slice(0, room)) {
          await tx.run('INSERT INTO list_bad_rows (list_id, line, value, problem) VALUES (?, ?, ?, ?) ON CONFLICT (list_id, line) DO NOTHING', [
            listId,
            bad.line,
            bad.value,
            bad.problem,
          ]);
        }
        await tx.run('UPDATE list_files SET bad_rows = bad_rows + ? WHERE list_id = ?', [rows.length, listId]);
      }),

    async recordImportError(listId, error, line) {
      await db.run('UPDATE list_files SET error = ?, error_line = ? WHERE list_id = ?', [error, line, listId]);
    },

    async *readFile(listId) {
      let next = 0;
      for (;;) {
        const rows = await db.all<{ seq: number; data: string }>('SELECT seq, data FROM list_file_chunks WHERE list_id = ? AND seq >= ? ORDER BY seq LIMIT ?', [
          listId,
          next,
          CHUNKS_PER_READ,
        ]);
        for (const row of rows) yield Buffer.from(row.data, 'base64');
        if (rows.length < CHUNKS_PER_READ) return;
        next = Number(rows[rows.length - 1]?.seq) + 1;
      }
    },

    async getFile(accountId, listId) {
      const row = await db.get<ListFileRow>('SELECT * FROM list_files WHERE list_id = ? AND account_id = ?', [listId, accountId]);
      return row ? toListFile(row) : null;
    },

    badRows: async (listId, limit) =>
      (await db.all<{ line: number; value: string; problem: string }>('SELECT line, value, problem FROM list_bad_rows WHERE list_id = ? ORDER BY line LIMIT ?', [listId, limit])).map(
        (r): BadRow => ({ line: Number(r.line), value: r.value, problem: r.problem }),
      ),

    async listLists(accountId, limit) {
      const rows = await db.all<
        Omit<ListFileRow, 'list_id' | 'account_id' | 'created_at'> & { id: string; name: string | null; state: ListState; entries: number; created_at: string; list_id: string | null; file_created_at: string | null }
      >(
        `SELECT l.id, l.name, l.state, l.entries, l.created_at, f.list_id, f.file_name, f.size_bytes, f.layout_json, f.column_choices_json, f.bad_rows,
                f.error, f.error_line, f.uploaded_by, f.created_at AS file_created_at
         FROM lists l LEFT JOIN list_files f ON f.list_id = l.id WHERE l.account_id = ? ORDER BY l.created_at DESC, l.id LIMIT ?`,
        [accountId, limit],
      );
      return rows.map(
        (r): ListOverview => ({
          id: r.id,
          name: r.name,
          state: r.state,
          entries: Number(r.entries),
          createdAt: r.created_at,
          file: r.list_id === null ? null : toListFile({ ...r, list_id: r.list_id, account_id: accountId, created_at: r.file_created_at ?? r.created_at }),
        }),
      );
    },

    async deleteList(accountId, listId) {
      const owned = await db.get<{ entries: number }>('SELECT entries FROM lists WHERE id = ? AND account_id = ?', [listId, accountId]);
      if (!owned) return false;
      // The entries first, a position range per transaction (a million entries in one DELETE held
      // the database for seconds); a delete stopped half-way is finished by the next one.
      for (let from = 0; from < Number(owned.entries); from += DELETE_CHUNK) {
        await db.write((tx) => Promise.resolve(tx.run('DELETE FROM list_entries WHERE list_id = ? AND position >= ? AND position < ?', [listId, from, from + DELETE_CHUNK])));
        await yieldToLoop();
      }
      return db.write(async (tx) => {
        const still = await tx.get<{ id: string }>(`SELECT id FROM lists WHERE id = ? AND account_id = ?${tx.dialect.forUpdate()}`, [listId, accountId]);
        if (!still) return false;
        // Children first: the store's own tables do not all cascade.
        await tx.run('DELETE FROM list_bad_rows WHERE list_id = ?', [listId]);
        await tx.run('DELETE FROM list_file_chunks WHERE list_id = ?', [listId]);
        await tx.run('DELETE FROM list_files WHERE list_id = ?', [listId]);
        await tx.run('DELETE FROM list_entries WHERE list_id = ?', [listId]);
        await tx.run('DELETE FROM lists WHERE id = ?', [listId]);
        return true;
      });
    },
  };
}
