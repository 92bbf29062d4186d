/**
 * What every table writer does (CSV in table-writer.ts, XLSX in xlsx-writer.ts): its own file so
 * the XLSX writer implements it without importing the module that chooses between the two.
 */
export interface TableWriter {
  writeRow(cells: readonly string[]): Promise<void>;
  /** Completes the table and ends the stream. */
  finish(): Promise<void>;
}
