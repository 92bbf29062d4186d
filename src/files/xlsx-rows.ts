/**
 * The rows of one worksheet of an XLSX file, streamed: saxes reads the sheet part chunk by
 * chunk and the rows completed by each chunk are handed on before the next is read. Cells are
 * given as text the way a person sees them: shared and inline strings as written, numbers as
 * stored, booleans TRUE/FALSE, error values (#N/A) as shown, formulas by their cached value,
 * and numbers in a date style as ISO 8601 dates (times when there is a time of day). Missing
 * rows (Excel writes no element for an empty row) come out as blank rows, so the row number
 * is the sheet's.
 */
import { SaxesParser } from 'saxes';
import { TableError } from './errors.js';
import type { TableRow } from './table-row.js';
import { localName, openXlsx, partText, readDateStyles, readSharedStrings, readWorkbook, type XlsxPackage } from './xlsx-package.js';

/** ECMA-376: a sheet has at most 1,048,576 rows and 16,384 columns. */
const MAX_ROW = 1_048_576;
const MAX_COLUMN = 16_384;

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
}

export interface XlsxRows {
  sheet: string;
  rows: AsyncGenerator<TableRow>;
}

export async function readXlsxRows(path: string, options: XlsxSheetOptions = {}): Promise<XlsxRows> {
  const pkg = await openXlsx(path);
  try {
    const { sheets, date1904 } = await readWorkbook(pkg);
    const sheet = options.sheet !== undefined ? sheets.find((s) => s.name === options.sheet) : (sheets.find((s) => !s.hidden) ?? sheets[0]);
    if (!sheet) throw new TableError('malformed_xlsx', `no sheet named "${options.sheet}"; the workbook has ${sheets.map((s) => `"${s.name}"`).join(', ')}`);
    if (!pkg.entries.has(sheet.part)) throw new TableError('malformed_xlsx', `the sheet "${sheet.name}" is missing from the workbook`);
    const [strings, dateStyles] = await Promise.all([readSharedStrings(pkg), readDateStyles(pkg)]);
    return { sheet: sheet.name, rows: sheetRows(pkg, sheet.part, strings, dateStyles, date1904) };
  } catch (error) {
    pkg.zip.close();
    throw error;
  }
}

async function* sheetRows(pkg: XlsxPackage, part: string, strings: string[], dateStyles: boolean[], date1904: boolean): AsyncGenerator<TableRow> {
  const parser = new SaxesParser();
  const ready: TableRow[] = [];
  let failure: Error | null = null;
  let lastRow = 0;
  let row: TableRow | null = null;
  let cell: CellState | null = null;
  let capture = false;
  let phonetic = false;

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

  parser.on('error', (error) => (failure ??= error));
  parser.on('opentag', (tag) => {
    const name = localName(tag.name);
    if (name === 'row') {
      const number = tag.attributes.r !== undefined ? Number(tag.attributes.r) : lastRow + 1;
      if (!Number.isInteger(number) || number <= lastRow || number > MAX_ROW) failure ??= new Error(`row number ${tag.attributes.r} out of order`);
      // Rows Excel left out are empty rows of the sheet.
      for (let blank = lastRow + 1; blank < number; blank++) ready.push({ line: blank, cells: [] });
      row = { line: number, cells: [] };
      lastRow = number;
    } else if (name === 'c' && row) {
      const column = (tag.attributes.r !== undefined ? columnIndex(tag.attributes.r) : null) ?? row.cells.length;
      if (column >= MAX_COLUMN) failure ??= new Error(`cell ${tag.attributes.r} beyond the last column`);
      cell = { column, type: tag.attributes.t ?? 'n', style: Number(tag.attributes.s ?? 0), value: '' };
    } else if ((name === 'v' || name === 't') && cell) {
      capture = true;
    } else if (name === 'rPh') {
      phonetic = true;
    }
  });
  parser.on('text', (text) => {
    if (capture && !phonetic && cell) cell.value += text;
  });
  parser.on('closetag', (tag) => {
    const name = localName(tag.name);
    if (name === 'v' || name === 't') capture = false;
    else if (name === 'rPh') phonetic = false;
    else if (name === 'c' && cell && row) {
      while (row.cells.length < cell.column) row.cells.push('');
      row.cells[cell.column] = cellText(cell);
      cell = null;
    } else if (name === 'row' && row) {
      ready.push(row);
      row = null;
    }
  });

  try {
    for await (const text of partText(pkg, part)) {
      parser.write(text);
      if (failure) throw new TableError('malformed_xlsx', `the sheet is not well-formed (${(failure as Error).message})`, lastRow || null, { cause: failure });
      yield* ready.splice(0);
    }
    parser.close();
    yield* ready.splice(0);
  } finally {
    pkg.zip.close();
  }
}
