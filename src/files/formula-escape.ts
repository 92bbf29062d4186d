/**
 * Formula ("CSV") injection: a spreadsheet runs a cell that starts with `=`, `+`, `-` or `@`
 * as a formula, and a tab or carriage return in front hides the same. The rows we write back
 * carry whatever the uploaded file and the addresses held (a valid address can be
 * `=cmd|'/Ccalc'!A0@example.com`: every character of it is allowed before the @). Following
 * the OWASP guidance (owasp.org/www-community/attacks/CSV_Injection), such a cell is written
 * with a leading single quote, which spreadsheets show as text. Full-width forms of the same
 * characters are treated alike. Plain numbers (`-12.5`, `+3`) are left alone: a number is not
 * a formula, and a negative amount or a +1 phone prefix written as digits only stays a value.
 * The same escaping applies to CSV and XLSX output: an XLSX string cell is not evaluated, but
 * a person who edits it, or saves the sheet as CSV, would turn it back into a formula.
 */

const TRIGGERS = new Set(['=', '+', '-', '@', '\t', '\r', '\uff1d', '\uff0b', '\uff0d', '\uff20']);
const PLAIN_NUMBER = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

export function escapeFormula(cell: string): string {
  if (cell === '' || !TRIGGERS.has(cell[0] as string)) return cell;
  if (PLAIN_NUMBER.test(cell)) return cell;
  return `'${cell}`;
}
