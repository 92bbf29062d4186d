/**
 * The joined rows as JSON (one array) or NDJSON (one object per line): each row an object
 * from the output header to the cell, the file's own columns first, then the presend_ ones.
 * Values are as read (no formula escaping: JSON is not opened by a spreadsheet). A header
 * name that repeats gets `_2`, `_3`… so no cell is lost.
 */
import type { Writable } from 'node:stream';
import { endWritable, writeChunk, type TableWriter } from '../../files/index.js';

export function jsonRowWriter(out: Writable, style: 'json' | 'ndjson', options: { endStream: boolean }): TableWriter {
  let keys: string[] | null = null;
  let rows = 0;
  return {
    async writeRow(cells) {
      if (keys === null) {
        const seen = new Map<string, number>();
        keys = cells.map((name) => {
          const key = name === '' ? 'column' : name;
          const count = (seen.get(key) ?? 0) + 1;
          seen.set(key, count);
          return count === 1 ? key : `${key}_${count}`;
        });
        if (style === 'json') await writeChunk(out, '[');
        return;
      }
      const record = Object.fromEntries((keys as string[]).map((key, i) => [key, cells[i] ?? '']));
      if (style === 'ndjson') await writeChunk(out, `${JSON.stringify(record)}\n`);
      else await writeChunk(out, `${rows === 0 ? '\n' : ',\n'}${JSON.stringify(record)}`);
      rows += 1;
    },
    async finish() {
      if (style === 'json') await writeChunk(out, keys === null ? '[]\n' : '\n]\n');
      if (options.endStream) await endWritable(out);
    },
  };
}
