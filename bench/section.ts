/** What every benchmark hands back to bench/run.ts: its part of BENCHMARKS.md. */
export interface Section {
  id: string;
  title: string;
  /** Markdown body (without the title line). */
  body: string;
  /** One line for the summary table: target and whether it was met. */
  summary: SummaryRow[];
}

export interface SummaryRow {
  figure: string;
  measured: string;
  target: string;
  met: boolean | null;
  /** By how much a missed target was missed. */
  gap?: string;
}

/**
 * A summary row for a numeric target: `at most` or `at least` a limit. A miss says by how
 * much, both as a difference and as a factor of the limit.
 */
export function targetRow(figure: string, measured: string, value: number, bound: 'at most' | 'at least', limit: number, unit: string, digits = 0): SummaryRow {
  const met = Number.isFinite(value) ? (bound === 'at most' ? value <= limit : value >= limit) : null;
  const row: SummaryRow = { figure, measured, target: `${bound === 'at most' ? '≤' : '≥'} ${fmtNumber(limit, digits)}${unit}`, met };
  if (met === false) {
    const diff = Math.abs(value - limit);
    const diffUnit = unit.trim() === '%' ? ' percentage points' : unit.trim() === '×' ? '' : unit;
    const factor = bound === 'at most' ? value / limit : limit / value;
    row.gap =
      bound === 'at most'
        ? `over by ${fmtNumber(diff, digits)}${diffUnit} (${fmtNumber(factor, 2)}× the limit)`
        : `short by ${fmtNumber(diff, digits)}${diffUnit} (the target is ${fmtNumber(factor, 2)}× the measured value)`;
  }
  return row;
}

function fmtNumber(value: number, digits: number): string {
  return value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

export function table(header: readonly string[], rows: ReadonlyArray<readonly string[]>): string {
  return [`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`, ...rows.map((r) => `| ${r.join(' | ')} |`)].join('\n');
}
