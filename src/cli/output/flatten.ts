/**
 * One result as a flat row: the envelope's main fields, for CSV and tables. Reasons are
 * joined with `;` so a row stays one CSV record; nulls become empty cells.
 */
import type { ResultItem, VerifyResult } from '../../client/index.js';

export const RESULT_COLUMNS = [
  'email',
  'state',
  'decision',
  'verdict',
  'confidence',
  'score',
  'reasons',
  'evidence_class',
  'provider_family',
  'billing_disposition',
  'billing_credits',
  'did_you_mean',
  'checked_at',
] as const;
export type ResultColumn = (typeof RESULT_COLUMNS)[number];
export type ResultRow = Record<ResultColumn, string>;

function cell(value: string | number | null | undefined): string {
  return value === null || value === undefined ? '' : String(value);
}

export function flattenResultItem(item: ResultItem): ResultRow {
  const envelope = item.presend;
  return {
    email: cell(item.email),
    state: cell(item.state ?? envelope?.status),
    decision: cell(envelope?.decision),
    verdict: cell(envelope?.verdict),
    confidence: cell(envelope?.confidence),
    score: cell(item.score),
    reasons: (envelope?.reasons ?? item.reasonCodes ?? []).join(';'),
    evidence_class: cell(envelope?.evidence_class),
    provider_family: cell(envelope?.provider_family),
    billing_disposition: cell(envelope?.billing.disposition),
    billing_credits: cell(envelope?.billing.credits),
    did_you_mean: cell(item.decision?.didYouMean),
    checked_at: cell(item.checkedAt),
  };
}

/** A single verification in the same columns, so `verify` and `results` print alike. */
export function flattenVerifyResult(email: string, result: VerifyResult): ResultRow {
  return flattenResultItem({
    email,
    state: result.presend.status,
    presend: result.presend,
    decision: result.decision ?? null,
    score: null,
    ...(result.engine ? { checkedAt: result.engine.verifiedAt } : {}),
  });
}
