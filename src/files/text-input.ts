/**
 * The first bytes of an input decide how to read it: a zip signature is an XLSX workbook, an
 * OLE2 signature an old binary .xls (refused with advice), anything else is text. A text's
 * encoding comes from its byte order mark (Excel's "Unicode text" is UTF-16LE with one), else
 * UTF-8 when the head decodes as UTF-8, else Windows-1252 — what Excel on Windows writes when it
 * saves "CSV" in the ANSI code page. Only the head is held; the rest streams through.
 */
import { TableError } from './errors.js';

/** Enough for the encoding, the delimiter and the header (the first ~100 rows of a usual file). */
export const HEAD_BYTES = 64 * 1024;

export type TextEncodingName = 'utf-8' | 'utf-16le' | 'utf-16be' | 'windows-1252';
export type InputKind = 'xlsx' | 'text';

export interface PeekedInput {
  /** The first HEAD_BYTES bytes (fewer when the input is shorter). */
  head: Buffer;
  /** True when the head is the whole input. */
  complete: boolean;
  /** The whole input again, head included; can be consumed once. */
  chunks: AsyncIterable<Buffer>;
}

export async function peek(source: AsyncIterable<Uint8Array>, bytes: number = HEAD_BYTES): Promise<PeekedInput> {
  const iterator = source[Symbol.asyncIterator]();
  const held: Buffer[] = [];
  let size = 0;
  let complete = false;
  while (size < bytes) {
    const next = await iterator.next();
    if (next.done) {
      complete = true;
      break;
    }
    const chunk = Buffer.from(next.value.buffer, next.value.byteOffset, next.value.byteLength);
    held.push(chunk);
    size += chunk.length;
  }
  async function* chunks(): AsyncGenerator<Buffer> {
    yield* held.splice(0);
    if (complete) return;
    for (;;) {
      const next = await iterator.next();
      if (next.done) return;
      yield Buffer.from(next.value.buffer, next.value.byteOffset, next.value.byteLength);
    }
  }
  return { head: Buffer.concat(held).subarray(0, bytes), complete, chunks: chunks() };
}

const ZIP = Buffer.from([0x50, 0x4b, 0x03, 0x04]);
const OLE2 = Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]);

export function inputKind(head: Buffer): InputKind {
  if (head.subarray(0, 4).equals(ZIP)) return 'xlsx';
  if (head.subarray(0, 8).equals(OLE2)) {
    throw new TableError('unsupported_format', 'this is an Excel 97–2003 workbook (.xls); save it as .xlsx or .csv and try again');
  }
  return 'text';
}

export function sniffEncoding(head: Buffer, complete: boolean): { encoding: TextEncodingName; bom: boolean } {
  if (head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf) return { encoding: 'utf-8', bom: true };
  if (head[0] === 0xff && head[1] === 0xfe) return { encoding: 'utf-16le', bom: true };
  if (head[0] === 0xfe && head[1] === 0xff) return { encoding: 'utf-16be', bom: true };
  // A NUL byte never occurs in a text file of the encodings below: a PDF, an image, a zip of something else.
  if (head.includes(0)) throw new TableError('unsupported_format', 'this is not a text file (CSV/TSV) nor an XLSX workbook');
  try {
    // `stream` while incomplete: the head may end inside a multi-byte character.
    new TextDecoder('utf-8', { fatal: true }).decode(head, { stream: !complete });
    return { encoding: 'utf-8', bom: false };
  } catch {
    return { encoding: 'windows-1252', bom: false };
  }
}

/** Text chunks of the input; the byte order mark is dropped (TextDecoder's default). */
export async function* decodeText(chunks: AsyncIterable<Uint8Array>, encoding: TextEncodingName): AsyncGenerator<string> {
  const decoder = new TextDecoder(encoding);
  for await (const chunk of chunks) {
    const text = decoder.decode(chunk, { stream: true });
    if (text !== '') yield text;
  }
  const tail = decoder.decode();
  if (tail !== '') yield tail;
}
