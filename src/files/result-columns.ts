/**
 * The columns Presend adds to each row of the caller's file, after all of the file's own.
 * They are prefixed `presend_` so they never collide with a column of the file; a file that
 * already has them (an earlier results file run again) gets them replaced, not repeated.
 *
 * An invalid address gets what a stored list's invalid entry gets from the service (docs/design.md
 * §5: status `rejected`, decision `suppress`, reason `invalid_syntax`, no verdict, never billed),
 * so a file verified with `presend batch` and the same file imported as a list agree.
 */
import { describeSyntaxError, type AddressRow } from './address-rows.js';

export const RESULT_COLUMNS = [
  'presend_line',
  'presend_row',
  'presend_email',
  'presend_normalized_email',
  'presend_status',
  'presend_decision',
  'presend_verdict',
  'presend_reasons',
  'presend_confidence',
  'presend_score',
  'presend_did_you_mean',
  'presend_duplicate_of',
  'presend_provider_family',
  'presend_evidence_class',
  'presend_checked_at',
  'presend_error',
] as const;
export type ResultColumn = (typeof RESULT_COLUMNS)[number];

const RESULT_COLUMN_SET: ReadonlySet<string> = new Set(RESULT_COLUMNS);

export function isResultColumn(header: string): boolean {
  return RESULT_COLUMN_SET.has(header.trim());
}

/** What a row needs of a result: the envelope's main fields, flattened. */
export interface ResultSummary {
  status: string;
  decision: string;
  verdict: string;
  reasons: string;
  confidence: string;
  score: string;
  didYouMean: string;
  providerFamily: string;
  evidenceClass: string;
  checkedAt: string;
}

/**
 * What a row reads of one result: the fields of a results page's item (the SDK's ResultItem,
 * or a stored row rendered as one). Declared here, not imported from the SDK: src/files sits
 * below the client and the service that both hand it results.
 */
export interface ResultFields {
  state?: string | null;
  score?: number | null;
  reasonCodes?: readonly string[] | null;
  checkedAt?: string | null;
  decision?: { didYouMean?: string | null } | null;
  presend?: {
    status?: string | null;
    decision?: string | null;
    verdict?: string | null;
    reasons?: readonly string[] | null;
    confidence?: number | null;
    provider_family?: string | null;
    evidence_class?: string | null;
  } | null;
}

function text(value: string | number | null | undefined): string {
  return value === null || value === undefined ? '' : String(value);
}

export function summariseResult(item: ResultFields): ResultSummary {
  const envelope = item.presend;
  return {
    status: text(item.state ?? envelope?.status),
    decision: text(envelope?.decision),
    verdict: text(envelope?.verdict),
    reasons: (envelope?.reasons ?? item.reasonCodes ?? []).join(';'),
    confidence: text(envelope?.confidence),
    score: text(item.score),
    didYouMean: text(item.decision?.didYouMean),
    providerFamily: text(envelope?.provider_family),
    evidenceClass: text(envelope?.evidence_class),
    checkedAt: text(item.checkedAt),
  };
}

/** The summary an invalid address gets (see the file comment). */
export function rejectedSummary(row: AddressRow): ResultSummary {
  return {
    status: 'rejected',
    decision: 'suppress',
    verdict: '',
    reasons: row.error === 'domain_literal' ? 'invalid_syntax;domain_literal' : 'invalid_syntax',
    confidence: '',
    score: '',
    didYouMean: '',
    providerFamily: '',
    evidenceClass: '',
    checkedAt: '',
  };
}

/**
 * The result of a row: its own address's, a duplicate's first occurrence's (the same
 * address), the rejection of an invalid one, or none (a blank row, or an address the service
 * did not answer for).
 */
export function rowSummary(row: AddressRow, results: ReadonlyMap<string, ResultSummary>): ResultSummary | null {
  if (row.kind === 'invalid') return rejectedSummary(row);
  if (row.normalized === null) return null;
  return results.get(row.normalized) ?? null;
}

export function resultCells(row: AddressRow, summary: ResultSummary | null): string[] {
  const error = row.kind === 'invalid' && row.error ? describeSyntaxError(row.given, row.error) : row.kind !== 'blank' && summary === null ? 'no result came back for this address' : '';
  const cells: Record<ResultColumn, string> = {
    presend_line: String(row.row.line),
    presend_row: row.kind,
    presend_email: row.kind === 'blank' ? '' : row.given,
    presend_normalized_email: row.normalized ?? '',
    presend_status: summary?.status ?? '',
    presend_decision: summary?.decision ?? '',
    presend_verdict: summary?.verdict ?? '',
    presend_reasons: summary?.reasons ?? '',
    presend_confidence: summary?.confidence ?? '',
    presend_score: summary?.score ?? '',
    presend_did_you_mean: summary?.didYouMean ?? '',
    presend_duplicate_of: row.duplicateOf === null ? '' : String(row.duplicateOf),
    presend_provider_family: summary?.providerFamily ?? '',
    presend_evidence_class: summary?.evidenceClass ?? '',
    presend_checked_at: summary?.checkedAt ?? '',
    presend_error: error,
  };
  return RESULT_COLUMNS.map((column) => cells[column]);
}
