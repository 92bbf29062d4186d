/**
 * Which character separates the cells of a text table. csv-parse reads a dialect it is given
 * but does not guess one, so the guess is made here, with csv-parse itself doing the reading:
 * the head of the file is parsed with each candidate, and the candidate that splits the rows
 * into the same number (> 1) of cells most consistently wins; ties go to the earlier
 * candidate. A file with one column (one address per line) has no delimiter to find.
 */
import { parse } from 'csv-parse/sync';

export const DELIMITERS = [',', ';', '\t', '|'] as const;
export type Delimiter = (typeof DELIMITERS)[number];

const SAMPLE_ROWS = 50;

export function delimiterName(delimiter: string): string {
  return delimiter === '\t' ? 'tab' : delimiter === ',' ? 'comma' : delimiter === ';' ? 'semicolon' : delimiter === '|' ? 'pipe' : JSON.stringify(delimiter);
}

/** `--delimiter` values: the character itself, or a name (tab, comma, semicolon, pipe). */
export function parseDelimiterOption(value: string): string | null {
  const named: Record<string, string> = { tab: '\t', '\\t': '\t', comma: ',', semicolon: ';', pipe: '|' };
  const delimiter = named[value.toLowerCase()] ?? value;
  return [...delimiter].length === 1 && !/["\r\n]/.test(delimiter) ? delimiter : null;
}

/** The head without its last, possibly cut, line (unless it is the whole input). */
function wholeLines(head: string, complete: boolean): string {
  if (complete) return head;
  const end = Math.max(head.lastIndexOf('\n'), head.lastIndexOf('\r'));
  return end > 0 ? head.slice(0, end) : head;
}

function cellCounts(text: string, delimiter: string): number[] | null {
  try {
    const rows = parse(text, { delimiter, relax_quotes: true, relax_column_count: true, skip_empty_lines: true, to: SAMPLE_ROWS }) as string[][];
    return rows.map((row) => row.length);
  } catch {
    // An unclosed quote in a cut-off head, or a quote this delimiter cannot explain.
    return null;
  }
}

export function sniffDelimiter(head: string, complete: boolean): Delimiter {
  const text = wholeLines(head, complete);
  let best: { delimiter: Delimiter; consistent: number } | null = null;
  for (const delimiter of DELIMITERS) {
    const counts = cellCounts(text, delimiter);
    if (!counts || counts.length === 0) continue;
    const frequency = new Map<number, number>();
    for (const count of counts) frequency.set(count, (frequency.get(count) ?? 0) + 1);
    const [width, rows] = [...frequency.entries()].sort((a, b) => b[1] - a[1] || b[0] - a[0])[0] ?? [1, 0];
    if (width < 2) continue;
    const consistent = rows / counts.length;
    if (!best || consistent > best.consistent) best = { delimiter, consistent };
  }
  return best?.delimiter ?? ',';
}

/** CRLF when the head's first line ends so; the writer answers in the same style. */
export function sniffLineEnding(head: string): '\n' | '\r\n' {
  const end = head.indexOf('\n');
  return end > 0 && head[end - 1] === '\r' ? '\r\n' : '\n';
}
