/**
 * What `presend batch FILE` tells the person about the file it read and the file it wrote:
 * how it was read (format, delimiter, header, address column), what the rows held (counted,
 * with the lines of invalid addresses), the batches, and the output.
 */
import type { BatchRequest } from '../../client/index.js';
import { delimiterName, type TableScan } from '../../files/index.js';

export function plural(count: number, one: string, many = `${one}s`): string {
  return `${count.toLocaleString('en-US')} ${count === 1 ? one : many}`;
}

export function describeLayout(name: string, scan: TableScan): string {
  const { layout } = scan;
  const format =
    layout.format === 'xlsx'
      ? `XLSX, sheet "${layout.sheet}"`
      : `${layout.delimiter === ',' ? 'CSV' : 'text'}, ${delimiterName(layout.delimiter ?? ',')}-separated${layout.encoding !== 'utf-8' ? `, ${layout.encoding}` : ''}`;
  const header = layout.headerLine === null ? 'no header row' : `header on line ${layout.headerLine}`;
  return `read ${name}: ${format}, ${header}, addresses in ${layout.emailColumnLabel}${layout.header ? ` (column ${layout.emailColumn + 1})` : ''}`;
}

export function describeCounts(scan: TableScan): string[] {
  const c = scan.counts;
  const lines = [
    `${plural(c.rows, 'row')}: ${plural(c.addresses, 'address', 'addresses')} (${plural(c.unique, 'unique address', 'unique addresses')}, ${plural(c.duplicates, 'duplicate')}), ${plural(c.invalid, 'invalid address', 'invalid addresses')}, ${plural(c.blank, 'blank row')}`,
  ];
  if (c.trimmed > 0) {
    lines.push(`${plural(c.trimmed, 'address', 'addresses')} had spaces around ${c.trimmed === 1 ? 'it' : 'them'}, trimmed before checking (the output keeps the cell as written)`);
  }
  if (scan.blankBeforeHeader > 0) lines.push(`${plural(scan.blankBeforeHeader, 'blank line')} above the header skipped`);
  for (const bad of scan.invalid.slice(0, 10)) lines.push(`  line ${bad.line}: ${JSON.stringify(bad.email)} — ${bad.error}`);
  if (c.invalid > 10) lines.push(`  … and ${plural(c.invalid - 10, 'more invalid row')} (all of them are in the output, with presend_error)`);
  return lines;
}

export function describeBatches(batches: readonly BatchRequest[]): string {
  const replayed = batches.filter((batch) => batch.replayed).length;
  const ids = batches.map((batch) => batch.request.id).join(', ');
  const what = replayed === 0 ? 'created' : replayed === batches.length ? 'replayed (created by an earlier run; not billed again)' : `created or replayed (${replayed} replayed, not billed again)`;
  return `${plural(batches.length, 'batch', 'batches')} ${what}: ${ids}`;
}

export function inputJson(name: string, scan: TableScan): Record<string, unknown> {
  const { layout } = scan;
  return {
    file: name,
    format: layout.format,
    encoding: layout.encoding,
    delimiter: layout.delimiter,
    sheet: layout.sheet,
    headerLine: layout.headerLine,
    emailColumn: { index: layout.emailColumn + 1, label: layout.emailColumnLabel },
    counts: scan.counts,
    blankBeforeHeader: scan.blankBeforeHeader,
    invalid: scan.invalid,
  };
}
