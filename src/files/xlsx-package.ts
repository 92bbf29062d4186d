/**
 * The parts of an XLSX workbook (ECMA-376 Part 1, SpreadsheetML) that a table needs: which
 * sheet is first, its shared strings and which cell styles are dates.
 *
 * Why not a workbook library: exceljs's streaming WorkbookReader reads the zip in one pass and
 * loses entries on Node >= 18 (exceljs#3064, open: `Cannot read properties of undefined
 * (reading 'sheets')`, most often on workbooks exceljs wrote itself, so also on our own output
 * files), and its non-streaming reader holds the whole workbook in memory; SheetJS reads whole
 * files too, and its npm releases are no longer maintained. Here the zip is read through its
 * central directory with yauzl (so the order of the entries does not matter, the way a zip is
 * meant to be read) and the XML with saxes, a streaming parser: memory holds the shared
 * strings, which the format requires, and one chunk of the sheet at a time. The bounds of
 * limits.ts hold throughout: the parts' uncompressed sizes are read from the zip's central
 * directory before anything is unpacked (yauzl fails an entry that unpacks to more than its
 * directory says), and the parser may hold no more than one bounded piece of markup or text.
 */
import { SaxesParser, type SaxesTagPlain } from 'saxes';
import yauzl, { type Entry, type ZipFile } from 'yauzl';
import { TableError } from './errors.js';
import { limitWords, MAX_CELL_CHARS, MAX_SHARED_STRINGS, MAX_SHARED_STRINGS_BYTES, MAX_XML_ATTRIBUTES, MAX_XML_DEPTH, MAX_XML_TOKEN_CHARS, type TableLimits } from './limits.js';

export interface XlsxPackage {
  zip: ZipFile;
  entries: Map<string, Entry>;
}

export function openXlsx(path: string): Promise<XlsxPackage> {
  return new Promise((resolve, reject) => {
    yauzl.open(path, { lazyEntries: true, autoClose: false }, (error, zip) => {
      if (error || !zip) return reject(new TableError('malformed_xlsx', `not a readable XLSX workbook (${error?.message ?? 'no zip'})`, null, { cause: error }));
      const entries = new Map<string, Entry>();
      zip.on('entry', (entry: Entry) => {
        entries.set(entry.fileName.replace(/^\/+/, ''), entry);
        zip.readEntry();
      });
      zip.once('end', () => resolve({ zip, entries }));
      zip.once('error', (cause: Error) => reject(new TableError('malformed_xlsx', `not a readable XLSX workbook (${cause.message})`, null, { cause })));
      zip.readEntry();
    });
  });
}

/** The text of one part, chunk by chunk (OOXML parts are UTF-8). */
export async function* partText(pkg: XlsxPackage, name: string): AsyncGenerator<string> {
  const entry = pkg.entries.get(name);
  if (!entry) return;
  const stream = await pkg.zip.openReadStreamPromise(entry);
  const decoder = new TextDecoder('utf-8');
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) yield decoder.decode(chunk, { stream: true });
  } catch (error) {
    // yauzl: a part that unpacks to more (or less) than the zip's directory says, or a broken deflate stream.
    throw new TableError('malformed_xlsx', `${name} cannot be unpacked (${(error as Error).message})`, null, { cause: error });
  }
  yield decoder.decode();
}

/**
 * Refuses, before any is unpacked, a workbook whose parts that a reading needs unpack to more
 * than `limits.maxUnzippedBytes` together, by the sizes of the zip's central directory.
 */
export function checkUnzippedSize(pkg: XlsxPackage, parts: readonly string[], limits: TableLimits): void {
  let total = 0;
  for (const part of new Set(parts)) total += pkg.entries.get(part)?.uncompressedSize ?? 0;
  if (total > limits.maxUnzippedBytes) throw new TableError('unzipped_too_large', limitWords.unzipped(limits, total));
}

/** What saxes holds between events (private fields of saxes 6, pinned in package.json): read to bound them. */
interface SaxesBuffers {
  text: string;
  name: string;
  tags: unknown[];
  attribList: unknown[];
}

/**
 * Bounds what the parser holds. saxes gathers a text node, a comment, a CDATA section or an
 * attribute value whole, across writes, before it hands it on; each write adds at most one
 * chunk, so checking after every write keeps it within MAX_XML_TOKEN_CHARS plus one chunk.
 */
export function checkParserHolds(parser: SaxesParser, part: string, line: number | null): void {
  const held = parser as unknown as SaxesBuffers;
  if (held.text.length > MAX_XML_TOKEN_CHARS) throw new TableError('cell_too_long', limitWords.cell(), line);
  if (held.name.length > MAX_XML_TOKEN_CHARS || held.tags.length > MAX_XML_DEPTH || held.attribList.length > MAX_XML_ATTRIBUTES) {
    throw new TableError('malformed_xlsx', `${part} is not a spreadsheet part (an element name, nesting or attribute list beyond any spreadsheet's)`, line);
  }
}

/** `x:row` and `row` alike: some writers (the .NET Open XML SDK) prefix SpreadsheetML tags. */
export function localName(name: string): string {
  const colon = name.indexOf(':');
  return colon === -1 ? name : name.slice(colon + 1);
}

type TagHandler = (tag: SaxesTagPlain) => void;

/** Runs saxes over a whole (small) part, calling `onOpen` for every element. */
export async function scanPart(pkg: XlsxPackage, name: string, onOpen: TagHandler, onText?: (text: string) => void, onClose?: (name: string) => void): Promise<void> {
  const parser = new SaxesParser();
  let failure: Error | null = null;
  parser.on('error', (error) => (failure ??= error));
  parser.on('opentag', onOpen);
  if (onText) parser.on('text', onText);
  if (onClose) parser.on('closetag', (tag) => onClose(localName(tag.name)));
  for await (const text of partText(pkg, name)) {
    parser.write(text);
    if (failure) throw new TableError('malformed_xlsx', `${name} is not well-formed XML`, null, { cause: failure });
    checkParserHolds(parser, name, null);
  }
  parser.close();
}

export interface SheetRef {
  name: string;
  /** The sheet part, e.g. `xl/worksheets/sheet1.xml`. */
  part: string;
  hidden: boolean;
}

/** The sheets in workbook order, and whether dates count from 1904 (old Mac workbooks). */
export async function readWorkbook(pkg: XlsxPackage): Promise<{ sheets: SheetRef[]; date1904: boolean }> {
  const targets = new Map<string, string>();
  await scanPart(pkg, 'xl/_rels/workbook.xml.rels', (tag) => {
    if (localName(tag.name) === 'Relationship' && tag.attributes.Id && tag.attributes.Target) targets.set(tag.attributes.Id, tag.attributes.Target);
  });
  const sheets: SheetRef[] = [];
  let date1904 = false;
  await scanPart(pkg, 'xl/workbook.xml', (tag) => {
    const name = localName(tag.name);
    if (name === 'workbookPr') date1904 = ['1', 'true'].includes(tag.attributes.date1904 ?? '');
    if (name !== 'sheet') return;
    const relation = Object.entries(tag.attributes).find(([key]) => key.endsWith(':id'))?.[1];
    const target = relation ? targets.get(relation) : undefined;
    if (!target) return;
    // Targets are relative to xl/ unless absolute (RFC 3986 reference from the workbook part).
    const part = target.startsWith('/') ? target.slice(1) : `xl/${target.replace(/^\.\//, '')}`;
    sheets.push({ name: tag.attributes.name ?? part, part, hidden: (tag.attributes.state ?? 'visible') !== 'visible' });
  });
  if (sheets.length === 0) throw new TableError('malformed_xlsx', 'the workbook has no worksheet');
  return { sheets, date1904 };
}

export async function readSharedStrings(pkg: XlsxPackage): Promise<string[]> {
  const entry = pkg.entries.get('xl/sharedStrings.xml');
  if (!entry) return [];
  if (entry.uncompressedSize > MAX_SHARED_STRINGS_BYTES) throw new TableError('unzipped_too_large', limitWords.sharedStrings());
  const strings: string[] = [];
  let current = '';
  let inText = false;
  let inPhonetic = false;
  await scanPart(
    pkg,
    'xl/sharedStrings.xml',
    (tag) => {
      const name = localName(tag.name);
      if (name === 'si') current = '';
      else if (name === 't') inText = true;
      // Phonetic runs (furigana) are a reading aid, not part of the cell's text.
      else if (name === 'rPh') inPhonetic = true;
    },
    (text) => {
      if (!inText || inPhonetic) return;
      if (current.length + text.length > MAX_CELL_CHARS) throw new TableError('cell_too_long', `${limitWords.cell()} (shared string ${strings.length + 1})`);
      current += text;
    },
    (name) => {
      if (name === 't') inText = false;
      else if (name === 'rPh') inPhonetic = false;
      else if (name === 'si') {
        if (strings.length >= MAX_SHARED_STRINGS) throw new TableError('unzipped_too_large', limitWords.sharedStrings());
        // A copy of its own: the parser's text is a slice of a whole chunk, which a kept slice would keep alive.
        strings.push(Buffer.from(current, 'utf8').toString('utf8'));
      }
    },
  );
  return strings;
}

/** Built-in number formats that show a date or a time (ECMA-376 Part 1, §18.8.30). */
const BUILT_IN_DATE_FORMATS = new Set([14, 15, 16, 17, 18, 19, 20, 21, 22, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 45, 46, 47, 50, 51, 52, 53, 54, 55, 56, 57, 58]);

function isDateFormatCode(code: string): boolean {
  // Literal text, escapes and [colour]/[locale] sections say nothing about the value's kind.
  const bare = code.replace(/"[^"]*"/g, '').replace(/\\./g, '').replace(/\[[^\]]*\]/g, '');
  return /[dmyhs]/i.test(bare);
}

/** For each cell style index (`s`), whether its number format is a date or time. */
export async function readDateStyles(pkg: XlsxPackage): Promise<boolean[]> {
  const customDate = new Map<number, boolean>();
  const styles: boolean[] = [];
  let inCellXfs = false;
  await scanPart(
    pkg,
    'xl/styles.xml',
    (tag) => {
      const name = localName(tag.name);
      if (name === 'numFmt') customDate.set(Number(tag.attributes.numFmtId), isDateFormatCode(tag.attributes.formatCode ?? ''));
      else if (name === 'cellXfs') inCellXfs = true;
      else if (name === 'xf' && inCellXfs) {
        const id = Number(tag.attributes.numFmtId ?? 0);
        styles.push(customDate.get(id) ?? BUILT_IN_DATE_FORMATS.has(id));
      }
    },
    undefined,
    (name) => {
      if (name === 'cellXfs') inCellXfs = false;
    },
  );
  return styles;
}
