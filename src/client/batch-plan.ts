/**
 * Splitting any number of addresses into batches the interface accepts (docs/interface-spec.md §8:
 * 1 to 10,000 `emails` per request). Addresses are checked with the service's own syntax check
 * first, so one bad address cannot get a whole batch refused (400); they are de-duplicated by
 * the normalised form the service de-duplicates on (docs/design.md §4), so duplicates neither count
 * against the cap nor hold credits; and each batch gets an Idempotency-Key derived from its
 * content. The same addresses give the same batches with the same keys, so running the same
 * job again replays the batches already created (no second charge, for the 24 hours the
 * service keeps idempotency records) and creates only the missing ones.
 */
import { createHash } from 'node:crypto';
import { parseAddress } from '../core/syntax/address.js';

export const MAX_BATCH_EMAILS = 10_000;

export interface InvalidAddress {
  /** Position in the input (0-based). */
  index: number;
  email: string;
  /** The syntax check's code, e.g. `missing_at`. */
  error: string;
}

export interface PlannedBatch {
  /** 0-based position among the plan's batches. */
  index: number;
  /** Normalised, unique addresses. */
  emails: string[];
  idempotencyKey: string;
}

export interface BatchPlan {
  /** Addresses given. */
  total: number;
  unique: number;
  duplicates: number;
  invalid: InvalidAddress[];
  batches: PlannedBatch[];
}

export interface PlanOptions {
  /** Unique addresses per batch, 1–10,000. Default 10,000. */
  batchSize?: number;
  /**
   * Mixed into every Idempotency-Key. Keep it stable to make a re-run resume; change it (for
   * example to a fresh UUID) to verify the same addresses again as new, billed batches.
   */
  idempotencyNamespace?: string;
}

export function batchIdempotencyKey(emails: readonly string[], namespace = ''): string {
  const hash = createHash('sha256').update(`presend-batch/v1\n${namespace}\n`);
  for (const email of emails) hash.update(`${email}\n`);
  return `presend-batch-${hash.digest('hex')}`;
}

export function planBatches(addresses: Iterable<string>, options: PlanOptions = {}): BatchPlan {
  const batchSize = options.batchSize ?? MAX_BATCH_EMAILS;
  if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > MAX_BATCH_EMAILS) {
    throw new RangeError(`batchSize must be an integer from 1 to ${MAX_BATCH_EMAILS}, got ${batchSize}`);
  }
  const unique = new Set<string>();
  const invalid: InvalidAddress[] = [];
  let total = 0;
  for (const address of addresses) {
    const parsed = parseAddress(address);
    if (parsed.ok) unique.add(parsed.address.normalized);
    else invalid.push({ index: total, email: address, error: parsed.error });
    total += 1;
  }
  const emails = [...unique];
  const batches: PlannedBatch[] = [];
  for (let start = 0; start < emails.length; start += batchSize) {
    const slice = emails.slice(start, start + batchSize);
    batches.push({ index: batches.length, emails: slice, idempotencyKey: batchIdempotencyKey(slice, options.idempotencyNamespace) });
  }
  return { total, unique: emails.length, duplicates: total - invalid.length - emails.length, invalid, batches };
}
