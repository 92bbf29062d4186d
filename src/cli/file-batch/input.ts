/**
 * The input file of `presend batch FILE` and `presend lists import FILE`, and the flags that
 * say how to read it. Results are joined back in a second reading of the file, so stdin (`-`)
 * is first copied to a temporary file, removed when the command ends.
 */
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { Command } from 'commander';
import { loadTableLimits } from '../../config.js';
import { boundedBytes, parseDelimiterOption, type TableOptions } from '../../files/index.js';
import { UsageError } from '../output/exit-codes.js';

export interface TableFlags {
  column?: string;
  delimiter?: string;
  sheet?: string;
}

export interface InputFile {
  /** A path that can be read as often as needed. */
  path: string;
  /** How to name it to the person: the path, or "stdin". */
  name: string;
  remove(): Promise<void>;
}

export async function inputFile(file: string): Promise<InputFile> {
  if (file !== '-') return { path: file, name: file, remove: async () => {} };
  const dir = await mkdtemp(join(tmpdir(), 'presend-stdin-'));
  const path = join(dir, 'stdin');
  const remove = () => rm(dir, { recursive: true, force: true });
  // The copy is bounded like any file read (PRESEND_FILE_MAX_MB): a pipe that never ends must not fill the disk.
  const limits = loadTableLimits();
  try {
    await pipeline(process.stdin, (source: AsyncIterable<Buffer>) => boundedBytes(source, limits), createWriteStream(path));
  } catch (error) {
    await remove();
    throw error;
  }
  return { path, name: 'stdin', remove };
}

/** How to read the file: the flags, and the bounds of every reading (PRESEND_FILE_MAX_MB and the others, src/config.ts). */
export function tableOptions(flags: TableFlags): TableOptions {
  const options: TableOptions = { limits: loadTableLimits() };
  if (flags.column !== undefined) {
    if (flags.column.trim() === '') throw new UsageError('--column needs a header name or a column number');
    options.column = flags.column;
  }
  if (flags.delimiter !== undefined) {
    const delimiter = parseDelimiterOption(flags.delimiter);
    if (delimiter === null) throw new UsageError(`--delimiter must be one character (or tab, comma, semicolon, pipe), got "${flags.delimiter}"`);
    options.delimiter = delimiter;
  }
  if (flags.sheet !== undefined) options.sheet = flags.sheet;
  return options;
}

/** The --column, --delimiter and --sheet options, shared by `batch` and `lists import`. */
export function addTableOptions(command: Command): Command {
  return command
    .option('--column <name|n>', 'the address column: a header name (case and spaces ignored) or a number from 1 (default: the column named email, e-mail, email address…, else the one holding addresses)')
    .option('--delimiter <char>', 'cell delimiter of a text file: a character, or tab, comma, semicolon, pipe (default: detected)')
    .option('--sheet <name>', 'XLSX: the sheet to read (default: the first visible one)');
}
