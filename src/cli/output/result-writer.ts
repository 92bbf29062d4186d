/**
 * Streams result items out as they arrive — CSV (flattened columns), JSON (one array),
 * NDJSON (one item per line) or a table (collected, printed at the end). Writing to a file
 * goes to `FILE.partial` and is renamed only when the export is complete, so a file named
 * as asked is always a complete collection. CSV goes through the one table writer of
 * src/files (table-writer.ts), which escapes every cell against formula injection: an address
 * such as `=cmd|'/Ccalc'!A0@example.com` is valid, and a spreadsheet would run it.
 */
import { createWriteStream } from 'node:fs';
import { rename } from 'node:fs/promises';
import { once } from 'node:events';
import type { Writable } from 'node:stream';
import type { ResultItem } from '../../client/index.js';
import { createCsvWriter, type TableWriter } from '../../files/index.js';
import { UsageError } from './exit-codes.js';
import { RESULT_COLUMNS, flattenResultItem } from './flatten.js';
import { renderTable } from './table.js';

export const OUTPUT_FORMATS = ['csv', 'json', 'ndjson'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number] | 'table';

export interface ResultWriter {
  write(item: ResultItem): Promise<void>;
  /** Completes the output; for a file, moves `FILE.partial` to `FILE`. */
  finish(): Promise<void>;
  /** Stops after a failure; a file stays as `FILE.partial`. Returns that path, if any. */
  abandon(): Promise<string | null>;
}

export function parseFormat(value: string): OutputFormat {
  if ((OUTPUT_FORMATS as readonly string[]).includes(value)) return value as OutputFormat;
  throw new UsageError(`--format must be one of ${OUTPUT_FORMATS.join(', ')}, got "${value}"`);
}

/** --format wins; else the --out extension; else JSON with --json, a table on a terminal, NDJSON in a pipe. */
export function chooseFormat(options: { format?: string; out?: string; json?: boolean }): OutputFormat {
  if (options.format !== undefined) return parseFormat(options.format);
  const extension = options.out?.toLowerCase().match(/\.([a-z]+)$/)?.[1];
  if (extension === 'csv') return 'csv';
  if (extension === 'ndjson' || extension === 'jsonl') return 'ndjson';
  if (extension === 'json') return 'json';
  if (options.out !== undefined) return 'csv';
  if (options.json) return 'json';
  return process.stdout.isTTY ? 'table' : 'ndjson';
}

async function put(stream: Writable, text: string): Promise<void> {
  if (!stream.write(text)) await once(stream, 'drain');
}

/** JSON and NDJSON as text; CSV through the table writer (cells escaped), a table collected and printed at the end. */
function encoderFor(format: 'json' | 'ndjson'): { head: string; item: (item: ResultItem, index: number) => string; tail: string } {
  return format === 'json'
    ? { head: '[', item: (item, index) => `${index === 0 ? '\n' : ',\n'}${JSON.stringify(item)}`, tail: '\n]\n' }
    : { head: '', item: (item) => JSON.stringify(item) + '\n', tail: '' };
}

export function createResultWriter(format: OutputFormat, out: string | undefined): ResultWriter {
  const partialPath = out === undefined ? null : `${out}.partial`;
  const stream: Writable = partialPath === null ? process.stdout : createWriteStream(partialPath);
  const csv: TableWriter | null = format === 'csv' ? createCsvWriter(stream, { delimiter: ',', lineEnding: '\n', bom: false }, { endStream: false }) : null;
  const encoder = format === 'json' || format === 'ndjson' ? encoderFor(format) : null;
  const tableRows: string[][] = [];
  let count = 0;
  let started = false;

  const start = async (): Promise<void> => {
    if (started) return;
    started = true;
    if (csv) await csv.writeRow(RESULT_COLUMNS);
    else if (encoder) await put(stream, encoder.head);
  };
  const close = async (): Promise<void> => {
    if (stream === process.stdout) return;
    stream.end();
    await once(stream, 'finish');
  };

  return {
    async write(item) {
      await start();
      if (csv) {
        const row = flattenResultItem(item);
        await csv.writeRow(RESULT_COLUMNS.map((column) => row[column]));
      } else if (encoder) {
        await put(stream, encoder.item(item, count));
      } else {
        const row = flattenResultItem(item);
        tableRows.push([row.email, row.state, row.decision, row.verdict, row.confidence, row.reasons]);
      }
      count += 1;
    },
    async finish() {
      await start();
      if (csv) await csv.finish();
      else if (encoder) await put(stream, format === 'json' && count === 0 ? ']\n' : encoder.tail);
      else await put(stream, renderTable(['email', 'state', 'decision', 'verdict', 'confidence', 'reasons'], tableRows));
      await close();
      if (partialPath !== null && out !== undefined) await rename(partialPath, out);
    },
    async abandon() {
      await close();
      return partialPath;
    },
  };
}
