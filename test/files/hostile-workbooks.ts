/**
 * Workbooks made to hurt a reader, written streamed (yazl), so a test can build one that
 * unpacks to hundreds of megabytes without ever holding it: the package parts a reader needs
 * around a sheet part that comes from a generator of XML text.
 */
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import yazl from 'yazl';

const MAIN = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
const REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const PKG_REL = 'http://schemas.openxmlformats.org/package/2006/relationships';

const PARTS: Record<string, string> = {
  '[Content_Types].xml':
    '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' +
    '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/></Types>',
  '_rels/.rels': `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="${PKG_REL}"><Relationship Id="rId1" Type="${REL}/officeDocument" Target="xl/workbook.xml"/></Relationships>`,
  'xl/workbook.xml': `<?xml version="1.0" encoding="UTF-8"?><workbook xmlns="${MAIN}" xmlns:r="${REL}"><sheets><sheet name="Sheet1" sheetId="1" r:id="rId1"/></sheets></workbook>`,
  'xl/_rels/workbook.xml.rels': `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="${PKG_REL}"><Relationship Id="rId1" Type="${REL}/worksheet" Target="worksheets/sheet1.xml"/></Relationships>`,
};

export const SHEET_HEAD = `<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="${MAIN}"><sheetData>`;
export const SHEET_TAIL = '</sheetData></worksheet>';

/** An inline-string cell. */
export const inlineCell = (ref: string, text: string) => `<c r="${ref}" t="inlineStr"><is><t>${text}</t></is></c>`;

/**
 * Writes a workbook whose sheet part is the text `sheet` yields (and, when given, a shared
 * strings part, as text or yielded); deflated at level 1, the fastest, since the point is the
 * unpacked size.
 */
export async function writeWorkbook(path: string, sheet: () => AsyncIterable<string> | Iterable<string>, sharedStrings?: string | (() => Iterable<string>)): Promise<void> {
  const zip = new yazl.ZipFile();
  for (const [name, content] of Object.entries(PARTS)) zip.addBuffer(Buffer.from(content), name);
  if (typeof sharedStrings === 'string') zip.addBuffer(Buffer.from(sharedStrings), 'xl/sharedStrings.xml');
  else if (sharedStrings) zip.addReadStream(Readable.from(sharedStrings()), 'xl/sharedStrings.xml', { compressionLevel: 1 });
  zip.addReadStream(Readable.from(sheet()), 'xl/worksheets/sheet1.xml', { compressionLevel: 1 });
  zip.end();
  const out = createWriteStream(path);
  await pipeline(zip.outputStream, out);
  if (!out.closed) await once(out, 'close');
}

/** `count` repetitions of one character, a megabyte at a time. */
export function* repeated(char: string, count: number): Generator<string> {
  const block = char.repeat(1024 * 1024);
  for (let left = count; left > 0; left -= block.length) yield left >= block.length ? block : block.slice(0, left);
}

/**
 * The bomb of issue 21: rows of inline-string cells of `cellChars` characters each (there, one row
 * of ten cells of 450 M characters, 4.4 MB zipped; a reader without bounds died of "heap out of
 * memory"). `before` rows of two address columns come first, so that an upload can be made to
 * wait for its owner's choice of column before it reaches the bomb.
 */
export function bombSheet(options: { cells: number; cellChars: number; before?: number }): () => Generator<string> {
  return function* () {
    yield SHEET_HEAD;
    let line = 1;
    if (options.before) {
      yield `<row r="1">${inlineCell('A1', 'work email')}${inlineCell('B1', 'home email')}</row>`;
      for (line = 2; line <= options.before; line++) yield `<row r="${line}">${inlineCell(`A${line}`, `p${line}@work.example`)}${inlineCell(`B${line}`, `p${line}@home.example`)}</row>`;
    }
    yield `<row r="${line}">`;
    for (let c = 0; c < options.cells; c++) {
      yield `<c r="${String.fromCharCode(65 + c)}${line}" t="inlineStr"><is><t>`;
      yield* repeated('a', options.cellChars);
      yield '</t></is></c>';
    }
    yield `</row>${SHEET_TAIL}`;
  };
}
