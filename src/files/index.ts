/**
 * Tabular files in and out, shared by the CLI and the dashboard: read CSV/TSV/semicolon and
 * XLSX as a stream of rows with their real line numbers (open-table.ts), tell what each row
 * holds (address-rows.ts), and write the caller's own rows back with Presend's result columns
 * (result-columns.ts, table-writer.ts). Every export is listed by name.
 */
export { openTable, SAMPLE_ROWS } from './open-table.js';
export type { OpenedTable, TableInput, TableLayout, TableOptions } from './open-table.js';
export type { TableRow } from './table-row.js';
export { isBlankRow } from './table-row.js';
export { TableError } from './errors.js';
export { boundedBytes, DEFAULT_TABLE_LIMITS, MAX_CELL_CHARS, MAX_CELLS_PER_ROW, MAX_ROW_CHARS } from './limits.js';
export type { TableLimits } from './limits.js';
export type { TableErrorCode } from './errors.js';
export { delimiterName, parseDelimiterOption } from './delimiter.js';
export { AddressRows, describeSyntaxError } from './address-rows.js';
export type { AddressRow, RowCounts, RowKind } from './address-rows.js';
export { RESULT_COLUMNS, isResultColumn, resultCells, rowSummary, summariseResult, type ResultFields } from './result-columns.js';
export type { ResultColumn, ResultSummary } from './result-columns.js';
export { ROW_SETS, parseRowSets, rowSet } from './only-filter.js';
export type { RowSet } from './only-filter.js';
export { escapeFormula } from './formula-escape.js';
export { TABLE_FORMATS, createTableWriter, createCsvWriter, csvRecord, endWritable, writeChunk } from './table-writer.js';
export type { CsvStyle, TableFormat } from './table-writer.js';
export type { TableWriter } from './table-writer-contract.js';
export { createXlsxWriter } from './xlsx-writer.js';
export { createOutputFile } from './output-file.js';
export type { OutputFile } from './output-file.js';
export { scanTable } from './table-scan.js';
export type { InvalidRow, TableScan } from './table-scan.js';
export { keptColumns, outputHeader, writeJoinedTable } from './joined-table.js';
export { listEntries } from './list-entries.js';
export type { RowProblem } from './list-entries.js';
export type { JoinOptions } from './joined-table.js';
