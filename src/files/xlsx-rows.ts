/**
 * The rows of one worksheet of an XLSX file, streamed: saxes reads the sheet part chunk by
 * chunk and the rows completed by each chunk are handed on before the next is read. Cells are
 * given as text the way a person sees them: shared and inline strings as written, numbers as
 * stored, booleans TRUE/FALSE, error values (#N/A) as shown, formulas by their cached value,
 * and numbers in a date style as ISO 8601 dates (times when there is a time of day). Missing
 * rows (Excel writes no element for an empty row) come out as blank rows, so the row number
 * is the sheet's. The bounds of limits.ts hold while a row is gathered, not after: a cell's
 * text, a row's characters and cells, and the sheet's rows.
 */
import { SaxesParser } from 'saxes';
import { TableError } from './errors.js';
import type { TableRow } from './table-row.js';
import { DEFAULT_TABLE_LIMITS, limitWords, MAX_CELL_CHARS, MAX_CELLS_PER_ROW, MAX_ROW_CHARS, type TableLimits } from './limits.js';
import { checkParserHolds, checkUnzippedSize, localName, openXlsx, partText, readDateStyles, readSharedStrings, readWorkbook, type XlsxPackage } from './xlsx-package.js';

/** ECMA-376: a sheet has at most 1,048,576 rows (and 16,384 columns, MAX_CELLS_PER_ROW). */
const MAX_ROW = 1_048_576;

const DAY_MS = 86_400_000;
/** Serial day 0 of the 1900 date system is 1899-12-30 (Excel counts 1900-02-29, which never was). */
const EPOCH_1900 = Date.UTC(1899, 11, 30);
const EPOCH_1904 = Date.UTC(1904, 0, 1);

export function serialToIso(serial: number, date1904: boolean): string {
  const ms = Math.round(((date1904 ? EPOCH_1904 : EPOCH_1900) + serial * DAY_MS) / 1000) * 1000;
  const iso = new Date(ms).toISOString();
  if (serial < 1 && !date1904) return iso.slice(11, 19);
  return ms % DAY_MS === 0 ? iso.slice(0, 10) : `${iso.slice(0, 10)} ${iso.slice(11, 19)}`;
}

/** `BC12` → 54 (0-based column index). */
function columnIndex(reference: string): number | null {
  const letters = /^[A-Za-z]+/.exec(reference)?.[0];
  if (!letters) return null;
  let index = 0;
  for (const letter of letters.toUpperCase()) index = index * 26 + (letter.charCodeAt(0) - 64);
  return index - 1;
}

interface CellState {
  column: number;
  type: string;
  style: number;
  value: string;
}

export interface XlsxSheetOptions {
  /** A sheet name; default the first visible sheet. */
  sheet?: string;
  limits?: TableLimits;
}

export interface XlsxRows {
  sheet: string;
  rows: AsyncGenerator<TableRow>;
}

export async function readXlsxRows(path: string, options: XlsxSheetOptions = {}): Promise<XlsxRows> {
  const pkg = await openXlsx(path);
  try {
    checkUnzippedSize(pkg, ['xl/workbook.xml', 'xl/_rels/workbook.xml.rels'], options.limits ?? DEFAULT_TABLE_LIMITS);
    const { sheets, date1904 } = await readWorkbook(pkg);
    const sheet = options.sheet !== undefined ? sheets.find((s) => s.name === options.sheet) : (sheets.find((s) => !s.hidden) ?? sheets[0]);
    if (!sheet) throw new TableError('malformed_xlsx', `no sheet named "${options.sheet}"; the workbook has ${sheets.map((s) => `"${s.name}"`).join(', ')}`);
    if (!pkg.entries.has(sheet.part)) throw new TableError('malformed_xlsx', `the sheet "${sheet.name}" is missing from the workbook`);
    const limits = options.limits ?? DEFAULT_TABLE_LIMITS;
    checkUnzippedSize(pkg, [sheet.part, 'xl/sharedStrings.xml', 'xl/styles.xml', 'xl/workbook.xml', 'xl/_rels/workbook.xml.rels'], limits);
    const [strings, dateStyles] = await Promise.all([readSharedStrings(pkg), readDateStyles(pkg)]);
    return { sheet: sheet.name, rows: sheetRows(pkg, sheet.part, strings, dateStyles, date1904, limits) };
  } catch (error) {
    pkg.zip.close();
    throw error;
  }
}

/** Rows ready to hand on: a row, or a run of rows the sheet left out (blank rows, made as they are handed on). */
type Ready = TableRow | { blankFrom: number; blankTo: number };

async function* sheetRows(pkg: XlsxPackage, part: string, strings: string[], dateStyles: boolean[], date1904: boolean, limits: TableLimits): AsyncGenerator<TableRow> {
  const parser = new SaxesParser();
  const ready: Ready[] = [];
  let failure: Error | null = null;
  let lastRow = 0;
  let row: TableRow | null = null;
  let rowChars = 0;
  let cell: CellState | null = null;
  let capture = false;
  let phonetic = false;
  const maxRow = Math.min(MAX_ROW, limits.maxRows);

  const cellText = (c: CellState): string => {
    switch (c.type) {
      case 's':
        return strings[Number(c.value)] ?? '';
      case 'b':
        return c.value === '1' ? 'TRUE' : c.value === '0' ? 'FALSE' : c.value;
      case 'str':
      case 'inlineStr':
      case 'e':
      case 'd':
        return c.value;
      default: {
        const number = Number(c.value);
        return dateStyles[c.style] && c.value !== '' && Number.isFinite(number) ? serialToIso(number, date1904) : c.value;
      }
    }
  };
  const bound = (code: 'cell_too_long' | 'row_too_long' | 'too_many_cells' | 'too_many_rows', message: string, line: number) => (failure ??= new TableError(code, message, line));

  parser.on('error', (error) => (failure ??= error));
  parser.on('opentag', (tag) => {
    const name = localName(tag.name);
    if (name === 'row') {
      const number = tag.attributes.r !== undefined ? Number(tag.attributes.r) : lastRow + 1;
      if (number > limits.maxRows && Number.isInteger(number)) return void bound('too_many_rows', limitWords.rows(limits), number);
      if (!Number.isInteger(number) || number <= lastRow || number > maxRow) failure ??= new Error(`row number ${tag.attributes.r} out of order`);
      // Rows Excel left out are empty rows of the sheet.
      if (number > lastRow + 1) ready.push({ blankFrom: lastRow + 1, blankTo: number - 1 });
      row = { line: number, cells: [] };
      rowChars = 0;
      lastRow = number;
    } else if (name === 'c' && row) {
      const column = (tag.attributes.r !== undefined ? columnIndex(tag.attributes.r) : null) ?? row.cells.length;
      if (column >= MAX_CELLS_PER_ROW) return void bound('too_many_cells', limitWords.cells(), row.line);
      cell = { column, type: tag.attributes.t ?? 'n', style: Number(tag.attributes.s ?? 0), value: '' };
    } else if ((name === 'v' || name === 't') && cell) {
      capture = true;
    } else if (name === 'rPh') {
      phonetic = true;
    }
  });
  parser.on('text', (text) => {
    if (!capture || phonetic || !cell || !row) return;
    if (cell.value.length + text.length > MAX_CELL_CHARS) return void bound('cell_too_long', limitWords.cell(), row.line);
    cell.value += text;
  });
  parser.on('closetag', (tag) => {
    const name = localName(tag.name);
    if (name === 'v' || name === 't') capture = false;
    else if (name === 'rPh') phonetic = false;
    else if (name === 'c' && cell && row) {
      const text = cellText(cell);
      rowChars += text.length;
      if (rowChars > MAX_ROW_CHARS) bound('row_too_long', limitWords.row(), row.line);
      while (row.cells.length < cell.column) row.cells.push('');
      row.cells[cell.column] = text;
      cell = null;
    } else if (name === 'row' && row) {
      ready.push(row);
      row = null;
    }
  });

  function* handOn(): Generator<TableRow> {
    for (const next of ready.splice(0)) {
      if ('cells' in next) yield next;
      else for (let blank = next.blankFrom; blank <= next.blankTo; blank++) yield { line: blank, cells: [] };
    }
  }

  try {
    for await (const text of partText(pkg, part)) {
      parser.write(text);
      const failed = failure as Error | null;
      if (failed instanceof TableError) throw failed;
      if (failed) throw new TableError('malformed_xlsx', `the sheet is not well-formed (${failed.message})`, lastRow || null, { cause: failed });
      checkParserHolds(parser, part, lastRow || null);
      yield* handOn();
    }
    parser.close();
    yield* handOn();
  } finally {
    pkg.zip.close();
  }
}
