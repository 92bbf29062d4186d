/**
 * The records of the list-files role (still declared in src/store/backend.ts with the other
 * lease roles; they move beside src/store/roles/list-files.ts with its interface): an uploaded
 * file, its column choice, its unusable rows, and a list with its file. Times are ISO-8601
 * strings, as everywhere in the store.
 */
import type { ListState } from './store.js';

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

