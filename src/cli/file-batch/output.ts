/**
 * Where and how the joined file of `presend batch FILE` is written: the format from --format,
 * else from the --out extension; a file is written as FILE.partial and renamed when complete;
 * without --out, CSV, JSON and NDJSON go to stdout.
 */
import type { Writable } from 'node:stream';
import { createOutputFile, createTableWriter, type CsvStyle, type OutputFile, type TableLayout, type TableWriter } from '../../files/index.js';
import { UsageError } from '../output/exit-codes.js';
import { jsonRowWriter } from './json-rows.js';

export const JOINED_FORMATS = ['csv', 'xlsx', 'json', 'ndjson'] as const;
export type JoinedFormat = (typeof JOINED_FORMATS)[number];

/** Null when no results file is asked for (neither --out nor --format). */
export function joinedFormat(flags: { format?: string; out?: string }): JoinedFormat | null {
  if (flags.format !== undefined) {
    if (!(JOINED_FORMATS as readonly string[]).includes(flags.format)) {
      throw new UsageError(`--format must be one of ${JOINED_FORMATS.join(', ')}, got "${flags.format}"`);
    }
    if (flags.format === 'xlsx' && flags.out === undefined) throw new UsageError('--format xlsx needs --out FILE');
    return flags.format as JoinedFormat;
  }
  if (flags.out === undefined) return null;
  const extension = /\.([a-z]+)$/i.exec(flags.out)?.[1]?.toLowerCase();
  if (extension === 'xlsx') return 'xlsx';
  if (extension === 'json') return 'json';
  if (extension === 'ndjson' || extension === 'jsonl') return 'ndjson';
  return 'csv';
}

/** The input's own dialect, so a semicolon file with CRLF comes back as one; `.tsv` asks for tabs. */
export function csvStyle(layout: TableLayout, out: string | undefined): CsvStyle {
  return {
    delimiter: out?.toLowerCase().endsWith('.tsv') ? '\t' : (layout.delimiter ?? ','),
    lineEnding: layout.lineEnding,
    // Excel reads UTF-8 CSV as UTF-8 only with a BOM: keep the input's, and add one for files that came as UTF-16 or Windows-1252.
    bom: layout.bom || (layout.encoding !== null && layout.encoding !== 'utf-8'),
  };
}

export interface JoinedOutput {
  writer: TableWriter;
  /** Renames FILE.partial to FILE (after the writer finished). */
  commit(): Promise<void>;
  /** Keeps FILE.partial after a failure; returns its path, if any. */
  abandon(): Promise<string | null>;
}

export async function openJoinedOutput(format: JoinedFormat, out: string | undefined, layout: TableLayout): Promise<JoinedOutput> {
  let file: OutputFile | null = null;
  let stream: Writable = process.stdout;
  if (out !== undefined) {
    file = await createOutputFile(out);
    stream = file.stream;
  }
  const endStream = file !== null;
  const writer =
    format === 'json' || format === 'ndjson' ? jsonRowWriter(stream, format, { endStream }) : createTableWriter(format, stream, csvStyle(layout, out), { endStream });
  return {
    writer,
    commit: async () => {
      await file?.commit();
    },
    abandon: async () => (file ? file.abandon() : null),
  };
}
