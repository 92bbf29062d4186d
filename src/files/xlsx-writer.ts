/**
 * A streamed XLSX workbook of one sheet, rows written as they come: the smallest package
 * Excel, LibreOffice and Numbers open (ECMA-376 Part 1: content types, relationships,
 * workbook, a default style sheet, one worksheet). Every cell is an inline string, so no
 * shared-strings table has to be held in memory and nothing is ever read as a formula or a
 * number by the file itself. The zip is yazl's, which streams an entry of unknown length.
 *
 * Why not exceljs's WorkbookWriter: it would do, but it brings ~200 packages (54 MB, several
 * deprecated) for what is five fixed parts and one XML stream; the reader cannot use exceljs
 * either (xlsx-package.ts says why).
 */
import { PassThrough, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import yazl from 'yazl';
import { escapeFormula } from './formula-escape.js';
import { MAX_CELL_CHARS } from './limits.js';
import type { TableWriter } from './table-writer-contract.js';

const MAIN = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
const REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const PKG_REL = 'http://schemas.openxmlformats.org/package/2006/relationships';
const HEAD = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n';


const PARTS: Record<string, string> = {
  '[Content_Types].xml':
    `${HEAD}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">` +
    '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>' +
    '<Default Extension="xml" ContentType="application/xml"/>' +
    '<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>' +
    '<Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>' +
    '<Override PartName="/xl/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.styles+xml"/>' +
    '</Types>',
  '_rels/.rels': `${HEAD}<Relationships xmlns="${PKG_REL}"><Relationship Id="rId1" Type="${REL}/officeDocument" Target="xl/workbook.xml"/></Relationships>`,
  'xl/workbook.xml': `${HEAD}<workbook xmlns="${MAIN}" xmlns:r="${REL}"><sheets><sheet name="Results" sheetId="1" r:id="rId1"/></sheets></workbook>`,
  'xl/_rels/workbook.xml.rels':
    `${HEAD}<Relationships xmlns="${PKG_REL}">` +
    `<Relationship Id="rId1" Type="${REL}/worksheet" Target="worksheets/sheet1.xml"/>` +
    `<Relationship Id="rId2" Type="${REL}/styles" Target="styles.xml"/></Relationships>`,
  'xl/styles.xml':
    `${HEAD}<styleSheet xmlns="${MAIN}"><fonts count="1"><font><sz val="11"/><name val="Calibri"/></font></fonts>` +
    '<fills count="2"><fill><patternFill patternType="none"/></fill><fill><patternFill patternType="gray125"/></fill></fills>' +
    '<borders count="1"><border><left/><right/><top/><bottom/><diagonal/></border></borders>' +
    '<cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs>' +
    '<cellXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/></cellXfs>' +
    '<cellStyles count="1"><cellStyle name="Normal" xfId="0" builtinId="0"/></cellStyles></styleSheet>',
};

/** XML 1.0 allows tab, LF, CR and most of Unicode; anything else (and lone surrogates) becomes U+FFFD. */
// eslint-disable-next-line no-control-regex
const NOT_XML = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

export function xmlText(text: string): string {
  return text.replace(NOT_XML, '\ufffd').replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** 0 → A, 25 → Z, 26 → AA (cell references; some readers need them on every cell). */
export function columnName(index: number): string {
  let name = '';
  for (let n = index + 1; n > 0; n = Math.floor((n - 1) / 26)) name = String.fromCharCode(65 + ((n - 1) % 26)) + name;
  return name;
}

function rowXml(line: number, cells: readonly string[]): string {
  let xml = `<row r="${line}">`;
  cells.forEach((cell, index) => {
    if (cell === '') return;
    const value = escapeFormula(cell).slice(0, MAX_CELL_CHARS);
    xml += `<c r="${columnName(index)}${line}" t="inlineStr"><is><t xml:space="preserve">${xmlText(value)}</t></is></c>`;
  });
  return `${xml}</row>`;
}

export function createXlsxWriter(out: Writable): TableWriter {
  const zip = new yazl.ZipFile();
  const sheet = new PassThrough();
  const mtime = new Date();
  for (const [name, content] of Object.entries(PARTS)) zip.addBuffer(Buffer.from(content, 'utf8'), name, { mtime });
  zip.addReadStream(sheet, 'xl/worksheets/sheet1.xml', { mtime });
  zip.end();
  const written = pipeline(zip.outputStream, out);
  // A failure of the output surfaces in finish(); until then it must not go unhandled.
  written.catch(() => undefined);
  let rows = 0;
  const write = async (text: string): Promise<void> => {
    if (!sheet.write(text)) await Promise.race([new Promise((resolve) => sheet.once('drain', resolve)), written]);
  };
  let started = false;
  const start = async (): Promise<void> => {
    if (started) return;
    started = true;
    await write(`${HEAD}<worksheet xmlns="${MAIN}"><sheetData>`);
  };
  return {
    async writeRow(cells) {
      await start();
      rows += 1;
      await write(rowXml(rows, cells));
    },
    async finish() {
      await start();
      sheet.end('</sheetData></worksheet>');
      await written;
    },
  };
}
