/**
 * Messages out of a file or a folder, one at a time, each with where it came from: an .eml file
 * (one message), an mbox (messages split on their `From ` lines, RFC 4155; `>From ` unquoted as
 * mboxrd writes it), or a Maildir (the files of its `cur/` and `new/`). A folder that is not a
 * Maildir is read file by file. Streamed: one message is held at a time, and one larger than
 * `maxMessageBytes` is skipped and reported, not read into memory.
 */
import { createReadStream } from 'node:fs';
import { open, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

export const MAX_MESSAGE_BYTES = 10 * 1024 * 1024;

export type MailItem = { where: string; raw: Buffer } | { where: string; problem: string };

async function isDir(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false;
  }
}

async function looksLikeMbox(path: string): Promise<boolean> {
  const handle = await open(path, 'r');
  try {
    const head = Buffer.alloc(5);
    const { bytesRead } = await handle.read(head, 0, 5, 0);
    return head.subarray(0, bytesRead).toString('latin1') === 'From ';
  } finally {
    await handle.close();
  }
}

async function* oneFile(path: string, maxBytes: number): AsyncGenerator<MailItem> {
  if (await looksLikeMbox(path)) {
    yield* mbox(path, maxBytes);
    return;
  }
  const size = (await stat(path)).size;
  if (size > maxBytes) {
    yield { where: path, problem: `larger than ${maxBytes} bytes; skipped` };
    return;
  }
  const chunks: Buffer[] = [];
  for await (const chunk of createReadStream(path)) chunks.push(chunk as Buffer);
  yield { where: path, raw: Buffer.concat(chunks) };
}

/** An mbox read line by line (latin1 keeps every byte as it is). */
async function* mbox(path: string, maxBytes: number): AsyncGenerator<MailItem> {
  const lines = createInterface({ input: createReadStream(path, { encoding: 'latin1' }), crlfDelay: Infinity });
  let lineNo = 0;
  let start = 0;
  let held: string[] = [];
  let size = 0;
  let tooBig = false;
  const flush = (): MailItem | null => {
    if (start === 0) return null;
    const where = `${path}:${start}`;
    if (tooBig) return { where, problem: `a message larger than ${maxBytes} bytes; skipped` };
    return { where, raw: Buffer.from(held.join('\n'), 'latin1') };
  };
  let previousBlank = true;
  for await (const line of lines) {
    lineNo++;
    if (previousBlank && line.startsWith('From ')) {
      const done = flush();
      if (done) yield done;
      start = lineNo;
      held = [];
      size = 0;
      tooBig = false;
      previousBlank = false;
      continue;
    }
    previousBlank = line === '';
    if (start === 0 || tooBig) continue;
    const unquoted = /^>+From /.test(line) ? line.slice(1) : line;
    size += unquoted.length + 1;
    if (size > maxBytes) {
      tooBig = true;
      held = [];
      continue;
    }
    held.push(unquoted);
  }
  const last = flush();
  if (last) yield last;
}

/** Every message under `path` (a file, a Maildir, or a folder of files), in a stable order. */
export async function* readMailItems(path: string, maxBytes: number = MAX_MESSAGE_BYTES): AsyncGenerator<MailItem> {
  if (!(await isDir(path))) {
    yield* oneFile(path, maxBytes);
    return;
  }
  const maildir = (await isDir(join(path, 'cur'))) && (await isDir(join(path, 'new')));
  const folders = maildir ? [join(path, 'cur'), join(path, 'new')] : [path];
  for (const folder of folders) {
    const names = (await readdir(folder, { withFileTypes: true })).filter((e) => e.isFile() && !e.name.startsWith('.')).map((e) => e.name).sort();
    for (const name of names) yield* oneFile(join(folder, name), maxBytes);
  }
}
