/**
 * `--only`: the usual downloads of a cleaned list, by the decision of each row (docs/cli.md):
 * - send:     decision `send`
 * - suppress: decision `suppress` (invalid addresses included: they are rejected, decision suppress)
 * - risky:    `send_with_caution`, `manual_review`, `enrich_first`
 * - unknown:  `recheck_later`, `do_not_decide`, or no decision yet
 * Duplicates follow their first occurrence; blank rows belong to no set.
 */
import type { AddressRow } from './address-rows.js';
import type { ResultSummary } from './result-columns.js';

export const ROW_SETS = ['send', 'suppress', 'risky', 'unknown'] as const;
export type RowSet = (typeof ROW_SETS)[number];

const SET_OF_DECISION: Record<string, RowSet> = {
  send: 'send',
  suppress: 'suppress',
  send_with_caution: 'risky',
  manual_review: 'risky',
  enrich_first: 'risky',
  recheck_later: 'unknown',
  do_not_decide: 'unknown',
};

export function rowSet(row: AddressRow, summary: ResultSummary | null): RowSet | null {
  if (row.kind === 'blank') return null;
  return SET_OF_DECISION[summary?.decision ?? ''] ?? 'unknown';
}

/** `send,risky` → the sets; null when a name is not one of ROW_SETS. */
export function parseRowSets(value: string): Set<RowSet> | null {
  const names = value
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter((name) => name !== '');
  if (names.length === 0 || !names.every((name) => (ROW_SETS as readonly string[]).includes(name))) return null;
  return new Set(names as RowSet[]);
}
