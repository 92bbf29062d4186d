/**
 * Batch creation (`POST /v1/requests`): validate, normalise and de-duplicate the addresses
 * (docs/design.md §4), then let the store create request + items + hold in one transaction, and
 * wake the workers. A batch over a stored list is created with its count and no items; its items
 * are copied from the list in chunks in the background (src/service/lists/list-batch-fill.ts), so a
 * list of a million entries costs this call one small transaction.
 *
 * Caps: a list longer than `listMaxEntries` is refused `list_too_large`; a batch that would take
 * the account's unfinished items past `maxOutstanding` is refused `too_much_outstanding_work`.
 */
import { parseAddress } from '../../core/syntax/address.js';
import { invalidAddressMessage } from '../../core/syntax/problems.js';
import type { AuthenticatedKey } from '../../store/api-keys.js';
import type { BatchRequestView } from '../../store/roles/batches/batch-records.js';
import type { BatchesRole } from '../../store/roles/batches/batches.js';
import type { ListsRole } from '../../store/roles/lists.js';
import type { WorkQueueRole } from '../../store/roles/work-queue.js';
import type { Refusal } from '../errors.js';
import { idempotencyClaim } from '../checks/idempotency.js';
import { dedupe } from './batch-items.js';
import { liveChecksRefusal } from '../engines/engines.js';
import type { ListBatchFiller } from '../lists/list-batch-fill.js';

/** How long a caller refused for outstanding work is told to wait: batches take minutes, not seconds. */
const OUTSTANDING_RETRY_AFTER_S = 60;

export const BATCH_ROUTE = 'POST /v1/requests';

export type BatchOutcome =
  | { kind: 'created' | 'replay'; request: BatchRequestView }
  | Refusal;

export interface BatchServiceOptions {
  batches: BatchesRole;
  lists: ListsRole;
  work: WorkQueueRole;
  retentionDays: number;
  /** Copies list batches into items (the process that creates one starts its fill). */
  filler: ListBatchFiller;
  /** PRESEND_LIST_MAX_ENTRIES. */
  listMaxEntries: number;
  /** PRESEND_ACCOUNT_MAX_OUTSTANDING. */
  maxOutstanding: number;
  now?: () => Date;
  isDraining?: () => boolean;
  /** Engines.liveChecksOff: live batches are refused with this message while the live engine cannot probe. */
  liveChecksOff?: string;
}

export class BatchService {
  private readonly now: () => Date;
  constructor(private readonly options: BatchServiceOptions) {
    this.now = options.now ?? (() => new Date());
  }

  async create(key: AuthenticatedKey, body: { emails?: string[]; listId?: string }, idempotencyKey: string): Promise<BatchOutcome> {
    const { batches, lists } = this.options;
    if ((body.emails === undefined) === (body.listId === undefined)) {
      return { kind: 'refused', code: 'invalid_request', message: 'Give exactly one of emails or listId.' };
    }
    if (this.options.isDraining?.()) return { kind: 'refused', code: 'service_unavailable', message: 'The service is shutting down.' };
    const liveOff = liveChecksRefusal(key.mode, this.options.liveChecksOff);
    if (liveOff) return liveOff;
    const now = this.now();
    let outcome;
    if (body.emails !== undefined) {
      const parsed = body.emails.map((e) => parseAddress(e));
      const bad = parsed.findIndex((p) => !p.ok);
      if (bad >= 0) {
        return { kind: 'refused', code: 'invalid_email', message: invalidAddressMessage(`emails[${bad}]`, body.emails[bad]) };
      }
      outcome = await batches.create({
        ...this.common(key, body, idempotencyKey, now),
        mode: 'emails',
        listId: null,
        total: body.emails.length,
        items: dedupe(parsed.map((p) => (p.ok ? { email: p.address.normalized, domain: p.address.domain } : null)), now),
      });
    } else {
      const list = await lists.getList(key.accountId, body.listId as string);
      if (!list) return { kind: 'refused', code: 'list_not_found' };
      if (list.state !== 'ready') return { kind: 'refused', code: 'list_not_ready', message: `The list is ${list.state}, not ready.` };
      if (list.entries > this.options.listMaxEntries) {
        return {
          kind: 'refused',
          code: 'list_too_large',
          message: `The list has ${list.entries.toLocaleString('en-US')} entries; at most ${this.options.listMaxEntries.toLocaleString('en-US')} are verified in one batch.`,
        };
      }
      // An invalid address inside a stored list becomes a `rejected` item, not a 400 (docs/design.md §5), as its chunk is written.
      outcome = await batches.create({
        ...this.common(key, body, idempotencyKey, now),
        mode: 'list',
        listId: list.id,
        total: list.entries,
        items: [],
        fillFromList: { lease: this.options.filler.lease() },
      });
      if (outcome.kind === 'created') this.options.filler.fill(outcome.request.id, list.id);
    }
    switch (outcome.kind) {
      case 'idempotency_mismatch':
        return { kind: 'refused', code: 'idempotency_key_reused' };
      case 'too_much_outstanding_work':
        return {
          kind: 'refused',
          code: 'too_much_outstanding_work',
          message: `This batch adds ${outcome.adding.toLocaleString('en-US')} items to the account's ${outcome.outstanding.toLocaleString('en-US')} unfinished ones; at most ${outcome.max.toLocaleString('en-US')} may be unfinished at once.`,
          retryAfterSeconds: OUTSTANDING_RETRY_AFTER_S,
        };
      case 'insufficient_credits':
        return {
          kind: 'refused',
          code: 'insufficient_credits',
          message: `This batch needs ${outcome.needed} credits; ${Math.max(0, outcome.available)} available.`,
        };
      case 'created':
        await this.options.work.publish(outcome.request.id);
        return outcome;
      case 'replay':
        return outcome;
    }
  }

  /** What every batch creation gives the store besides its items. */
  private common(key: AuthenticatedKey, body: { emails?: string[]; listId?: string }, idempotencyKey: string, now: Date) {
    return {
      accountId: key.accountId,
      keyId: key.keyId,
      billable: key.mode === 'live',
      idempotency: idempotencyClaim(BATCH_ROUTE, key.mode, idempotencyKey, body, now),
      now,
      retentionDays: this.options.retentionDays,
      maxOutstanding: this.options.maxOutstanding,
    };
  }
}
