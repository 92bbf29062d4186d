/**
 * An output file that only ever exists complete: it is written as `FILE.partial` and renamed
 * to `FILE` once everything is in. A failed run leaves the `.partial` file, never a short
 * `FILE` that passes for the whole.
 */
import { createWriteStream, type WriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { once } from 'node:events';

export interface OutputFile {
  stream: WriteStream;
  /** The stream must be finished first. */
  commit(): Promise<void>;
  /** Ends the stream and keeps the partial file; returns its path. */
  abandon(): Promise<string>;
  /** Ends the stream and removes the partial file. */
  discard(): Promise<void>;
}

export async function createOutputFile(path: string): Promise<OutputFile> {
  const partial = `${path}.partial`;
  const stream = createWriteStream(partial);
  await once(stream, 'open');
  const end = async (): Promise<void> => {
    if (stream.closed) return;
    stream.end();
    await once(stream, 'close');
  };
  return {
    stream,
    async commit() {
      await end();
      await rename(partial, path);
    },
    async abandon() {
      await end();
      return partial;
    },
    async discard() {
      await end();
      await rm(partial, { force: true });
    },
  };
}
