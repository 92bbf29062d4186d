/**
 * Reads the addresses of a batch from a file or stdin: a CSV with an `email` column (any
 * case), else the first column of each row — which also covers one address per line.
 * Blank cells are skipped; nothing else is judged here: the service checks syntax and
 * names the index of a bad address (DESIGN.md §4, 400).
 */
import { readFile } from 'node:fs/promises';
import { text } from 'node:stream/consumers';
import { parse } from 'csv-parse/sync';
import { UsageError } from './exit-codes.js';

export const MAX_BATCH_EMAILS = 10_000;

export function parseAddressList(content: string): string[] {
  let rows: string[][];
  try {
    rows = parse(content, { bom: true, relax_column_count: true, skip_empty_lines: true, trim: true }) as string[][];
  } catch (error) {
    throw new UsageError(`cannot read the address list as CSV: ${error instanceof Error ? error.message : String(error)}`);
  }
  const header = rows[0] ?? [];
  const emailColumn = header.findIndex((cell) => cell.toLowerCase() === 'email');
  const column = emailColumn === -1 ? 0 : emailColumn;
  const body = emailColumn === -1 ? rows : rows.slice(1);
  return body.map((row) => (row[column] ?? '').trim()).filter((address) => address !== '');
}

export async function readAddressList(source: string): Promise<string[]> {
  let content: string;
  try {
    content = source === '-' ? await text(process.stdin) : await readFile(source, 'utf8');
  } catch (error) {
    throw new UsageError(`cannot read ${source === '-' ? 'stdin' : source}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
  const addresses = parseAddressList(content);
  if (addresses.length === 0) throw new UsageError(`no addresses in ${source === '-' ? 'stdin' : source}`);
  if (addresses.length > MAX_BATCH_EMAILS) {
    throw new UsageError(`${addresses.length} addresses; a batch takes at most ${MAX_BATCH_EMAILS} (split the file)`);
  }
  return addresses;
}
