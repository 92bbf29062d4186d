/**
 * openTable: a file (a path, or a stream such as an upload) in, its rows out — one at a
 * time, in file order, with their line numbers — plus the layout that was found (format,
 * encoding, delimiter, header, address column). Text tables stream straight through; an XLSX
 * workbook needs random access to its zip directory, so a streamed one is first written to a
 * temporary file (removed when its rows are done). Pass the layout of a first reading back
 * (`options.layout`) to read the same file again exactly the same way. Every reading keeps the
 * bounds of limits.ts (`options.limits`, else the defaults): bytes, rows, cells per row, a
 * cell's and a row's characters, and for a workbook its unpacked size.
 */
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import { readDelimitedRows } from './delimited-rows.js';
import { sniffDelimiter, sniffLineEnding } from './delimiter.js';
import { TableError } from './errors.js';
import { chooseColumn } from './layout.js';
import { boundedBytes, DEFAULT_TABLE_LIMITS, limitWords, MAX_CELL_CHARS, MAX_CELLS_PER_ROW, type TableLimits } from './limits.js';
import type { TableRow } from './table-row.js';
import { decodeText, inputKind, peek, sniffEncoding, type TextEncodingName } from './text-input.js';
import { readXlsxRows } from './xlsx-rows.js';

/** Rows read before deciding the header and the address column. */
export const SAMPLE_ROWS = 100;

export type TableInput = { path: string } | { stream: AsyncIterable<Uint8Array> };

export interface TableOptions {
  /** A header name (case, spaces, `_`, `-`, `.` ignored) or a column number from 1. */
  column?: string;
  /** The cell delimiter of a text table, instead of the guess. */
  delimiter?: string;
  /** Whether the first non-blank row is a header, instead of the guess. */
  header?: boolean;
  /** XLSX: the sheet to read (default the first visible one). */
  sheet?: string;
  /** The layout of an earlier reading of the same file: read it again the same way. */
  layout?: TableLayout;
  /** The bounds of the reading (default DEFAULT_TABLE_LIMITS). */
  limits?: TableLimits;
}

export interface TableLayout {
  format: 'csv' | 'xlsx';
  /** Text tables only. */
  encoding: TextEncodingName | null;
  bom: boolean;
  delimiter: string | null;
  lineEnding: '\n' | '\r\n';
  /** XLSX only: the sheet read. */
  sheet: string | null;
  /** The header row's cells as written, or null when the file has none. */
  header: string[] | null;
  headerLine: number | null;
  /** 0-based index of the address column, and how to name it to a person. */
  emailColumn: number;
  emailColumnLabel: string;
}

export interface OpenedTable {
  layout: TableLayout;
  /** The data rows: every row after the header, blank ones included. */
  rows: AsyncGenerator<TableRow>;
  /** Blank rows before the header (they are not data rows). */
  blankBeforeHeader: number;
}

type Dialect = Pick<TableLayout, 'format' | 'encoding' | 'bom' | 'delimiter' | 'lineEnding' | 'sheet'>;

async function sourceChunks(input: TableInput, limits: TableLimits): Promise<AsyncIterable<Uint8Array>> {
  if ('stream' in input) return boundedBytes(input.stream, limits);
  try {
    const info = await stat(input.path);
    if (info.isDirectory()) throw new TableError('unreadable', `${input.path} is a folder, not a file`);
    if (info.size > limits.maxBytes) throw new TableError('file_too_large', limitWords.bytes(limits));
  } catch (error) {
    if (error instanceof TableError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new TableError('not_found', `file not found: ${input.path}`, null, { cause: error });
    if (code === 'EACCES') throw new TableError('unreadable', `no permission to read ${input.path}`, null, { cause: error });
    throw new TableError('unreadable', `cannot read ${input.path}: ${code ?? String(error)}`, null, { cause: error });
  }
  return boundedBytes(createReadStream(input.path), limits);
}

async function spool(chunks: AsyncIterable<Uint8Array>): Promise<{ path: string; remove: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'presend-upload-'));
  const path = join(dir, 'upload.xlsx');
  const remove = () => rm(dir, { recursive: true, force: true });
  try {
    await pipeline(Readable.from(chunks), createWriteStream(path));
  } catch (error) {
    await remove();
    throw error;
  }
  return { path, remove };
}

async function* withCleanup(rows: AsyncGenerator<TableRow>, cleanup: () => Promise<void>): AsyncGenerator<TableRow> {
  try {
    yield* rows;
  } finally {
    await cleanup();
  }
}

/** The bounds that hold for every row of either format, checked as each row is handed on. */
async function* boundedRows(rows: AsyncGenerator<TableRow>, limits: TableLimits): AsyncGenerator<TableRow> {
  let count = 0;
  for await (const row of rows) {
    count += 1;
    if (count > limits.maxRows) throw new TableError('too_many_rows', limitWords.rows(limits), row.line);
    if (row.cells.length > MAX_CELLS_PER_ROW) throw new TableError('too_many_cells', limitWords.cells(), row.line);
    if (row.cells.some((cell) => cell.length > MAX_CELL_CHARS)) throw new TableError('cell_too_long', limitWords.cell(), row.line);
    yield row;
  }
}

async function readRows(input: TableInput, options: TableOptions): Promise<{ dialect: Dialect; rows: AsyncGenerator<TableRow> }> {
  const read = await readFormat(input, options);
  return { ...read, rows: boundedRows(read.rows, options.limits ?? DEFAULT_TABLE_LIMITS) };
}

async function readFormat(input: TableInput, options: TableOptions): Promise<{ dialect: Dialect; rows: AsyncGenerator<TableRow> }> {
  const limits = options.limits ?? DEFAULT_TABLE_LIMITS;
  const peeked = await peek(await sourceChunks(input, limits));
  if (inputKind(peeked.head) === 'xlsx') {
    const sheetOption = options.layout?.sheet ?? options.sheet;
    const sheetOptions = { limits, ...(sheetOption !== undefined && sheetOption !== null ? { sheet: sheetOption } : {}) };
    let read;
    if ('path' in input) {
      for await (const chunk of peeked.chunks) void chunk; // closes the read stream; yauzl opens the file itself
      read = await readXlsxRows(input.path, sheetOptions);
    } else {
      const file = await spool(peeked.chunks);
      try {
        read = await readXlsxRows(file.path, sheetOptions);
      } catch (error) {
        await file.remove();
        throw error;
      }
      read = { ...read, rows: withCleanup(read.rows, file.remove) };
    }
    return { dialect: { format: 'xlsx', encoding: null, bom: false, delimiter: null, lineEnding: '\n', sheet: read.sheet }, rows: read.rows };
  }
  const { encoding, bom } = options.layout?.encoding ? { encoding: options.layout.encoding, bom: options.layout.bom } : sniffEncoding(peeked.head, peeked.complete);
  const headText = new TextDecoder(encoding).decode(peeked.head, { stream: !peeked.complete });
  const delimiter = options.layout?.delimiter ?? options.delimiter ?? sniffDelimiter(headText, peeked.complete);
  const dialect: Dialect = { format: 'csv', encoding, bom, delimiter, lineEnding: sniffLineEnding(headText), sheet: null };
  return { dialect, rows: readDelimitedRows(decodeText(peeked.chunks, encoding), delimiter) };
}

export async function openTable(input: TableInput, options: TableOptions = {}): Promise<OpenedTable> {
  const { dialect, rows } = await readRows(input, options);
  const sample: TableRow[] = [];
  try {
    while (sample.length < SAMPLE_ROWS) {
      const next = await rows.next();
      if (next.done) break;
      sample.push(next.value);
    }
  } catch (error) {
    await rows.return(undefined);
    throw error;
  }
  let choice;
  if (options.layout) {
    const headerLine = options.layout.headerLine;
    choice = { headerIndex: headerLine === null ? null : sample.findIndex((row) => row.line === headerLine), column: options.layout.emailColumn, label: options.layout.emailColumnLabel };
  } else {
    try {
      choice = chooseColumn(sample, { ...(options.column !== undefined ? { column: options.column } : {}), ...(options.header !== undefined ? { header: options.header } : {}) });
    } catch (error) {
      await rows.return(undefined);
      throw error;
    }
  }
  const headerIndex = choice.headerIndex !== null && choice.headerIndex >= 0 ? choice.headerIndex : null;
  const headerRow = headerIndex === null ? null : (sample[headerIndex] ?? null);
  // Blank rows above a header are not data; a headerless file keeps its leading blank rows.
  const dataStart = headerIndex === null ? 0 : headerIndex + 1;
  async function* dataRows(): AsyncGenerator<TableRow> {
    try {
      yield* sample.slice(dataStart);
      yield* rows;
    } finally {
      await rows.return(undefined);
    }
  }
  return {
    layout: {
      ...dialect,
      header: headerRow?.cells ?? null,
      headerLine: headerRow?.line ?? null,
      emailColumn: choice.column,
      emailColumnLabel: choice.label,
    },
    rows: dataRows(),
    blankBeforeHeader: headerIndex ?? 0,
  };
}
