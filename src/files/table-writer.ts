/**
 * Writing a table: CSV (csv-stringify) or XLSX (xlsx-writer.ts), one row at a time with
 * back-pressure, every cell escaped against formula injection (formula-escape.ts) — the
 * writers do it, so no caller can forget. Every CSV line Presend writes (the CLI's exports, the
 * dashboard's results files and ledger) is made by `csvRecord` here; the lint configuration lets
 * no other module import csv-stringify.
 */
import { once } from 'node:events';
import type { Writable } from 'node:stream';
import { stringify } from 'csv-stringify/sync';
import { escapeFormula } from './formula-escape.js';
import { createXlsxWriter } from './xlsx-writer.js';
import type { TableWriter } from './table-writer-contract.js';

export const TABLE_FORMATS = ['csv', 'xlsx'] as const;
export type TableFormat = (typeof TABLE_FORMATS)[number];

export interface CsvStyle {
  delimiter: string;
  lineEnding: '\n' | '\r\n';
  /** Start with a UTF-8 byte order mark (what makes Excel read UTF-8 CSV as UTF-8). */
  bom: boolean;
}

export async function writeChunk(stream: Writable, chunk: string | Buffer): Promise<void> {
  if (!stream.write(chunk)) await once(stream, 'drain');
}

export async function endWritable(stream: Writable): Promise<void> {
  if (stream.writableFinished) return;
  stream.end();
  await once(stream, 'finish');
}

const UNIX_STYLE: Pick<CsvStyle, 'delimiter' | 'lineEnding'> = { delimiter: ',', lineEnding: '\n' };

/** One CSV record, its cells escaped against formula injection. */
export function csvRecord(cells: readonly string[], style: Pick<CsvStyle, 'delimiter' | 'lineEnding'> = UNIX_STYLE): string {
  return stringify([cells.map(escapeFormula)], { delimiter: style.delimiter, record_delimiter: style.lineEnding === '\r\n' ? 'windows' : 'unix' });
}

export function createCsvWriter(out: Writable, style: CsvStyle, options: { endStream?: boolean } = {}): TableWriter {
  let started = false;
  return {
    async writeRow(cells) {
      if (!started && style.bom) await writeChunk(out, '\ufeff');
      started = true;
      await writeChunk(out, csvRecord(cells, style));
    },
    async finish() {
      if (!started && style.bom) await writeChunk(out, '\ufeff');
      started = true;
      if (options.endStream !== false) await endWritable(out);
    },
  };
}

export function createTableWriter(format: TableFormat, out: Writable, style: CsvStyle, options: { endStream?: boolean } = {}): TableWriter {
  return format === 'xlsx' ? createXlsxWriter(out) : createCsvWriter(out, style, options);
}
