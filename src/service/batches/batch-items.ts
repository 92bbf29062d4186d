/**
 * A batch's items from stored list entries (docs/design.md §4, §5): each entry normalised, the
 * duplicates dropped (first one wins), and an invalid address kept as an item final at once
 * (`rejected`), not refused — used on one chunk of a list at a time by the list batch fill.
 */
import { parseAddress } from '../../core/syntax/address.js';
import type { SyntaxError } from '../../core/syntax/address.js';
import { syntaxRejection } from '../../core/syntax-rejection.js';
import { toStoredResult } from '../../store/stored-result.js';
import type { NewBatchItem } from '../../store/batch-request.js';

export function batchItemsFrom(entries: readonly string[], now: Date): NewBatchItem[] {
  return dedupe(
    entries.map((e) => {
      const p = parseAddress(e);
      return p.ok ? { email: p.address.normalized, domain: p.address.domain } : { email: e.trim(), domain: '', rejected: p.error };
    }),
    now,
  );
}

/** Unique addresses in their first order; `null` entries are skipped. */
export function dedupe(entries: Array<{ email: string; domain: string; rejected?: SyntaxError } | null>, now: Date): NewBatchItem[] {
  const seen = new Map<string, NewBatchItem>();
  for (const e of entries) {
    if (!e || seen.has(e.email)) continue;
    seen.set(
      e.email,
      e.rejected ? { email: e.email, domain: e.domain, finalResult: toStoredResult(syntaxRejection(e.email, e.rejected, now)) } : { email: e.email, domain: e.domain },
    );
  }
  return [...seen.values()];
}
