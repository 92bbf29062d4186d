/**
 * Batch creation (`POST /v1/requests`): validate, normalise and de-duplicate the addresses
 * (DESIGN.md §4), then let the store create request + items + hold in one transaction, and
 * wake the workers.
 */
import { parseAddress } from '../core/syntax/address.js';
import { invalidAddressMessage } from '../core/syntax/problems.js';
import type { SyntaxError } from '../core/syntax/address.js';
import { syntaxRejection } from '../core/syntax-rejection.js';
import { toStoredResult } from '../store/store.js';
import type { AuthenticatedKey, BatchRequestView, NewBatchItem } from '../store/store.js';
import type { BatchesRole, ListsRole, WorkQueueRole } from '../store/backend.js';
import type { Refusal } from './errors.js';
import { idempotencyClaim } from './idempotency.js';

export const BATCH_ROUTE = 'POST /v1/requests';

export type BatchOutcome =
  | { kind: 'created' | 'replay'; request: BatchRequestView }
  | Refusal;

export interface BatchServiceOptions {
  batches: BatchesRole;
  lists: ListsRole;
  work: WorkQueueRole;
  retentionDays: number;
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
    const liveOff = key.mode === 'live' ? this.options.liveChecksOff : undefined;
    if (liveOff !== undefined) return { kind: 'refused', code: 'service_unavailable', message: liveOff };
    const now = this.now();
    let items: NewBatchItem[];
    let total: number;
    if (body.emails !== undefined) {
      const parsed = body.emails.map((e) => parseAddress(e));
      const bad = parsed.findIndex((p) => !p.ok);
      if (bad >= 0) {
        return { kind: 'refused', code: 'invalid_email', message: invalidAddressMessage(`emails[${bad}]`, body.emails[bad]) };
      }
      total = body.emails.length;
      items = dedupe(parsed.map((p) => (p.ok ? { email: p.address.normalized, domain: p.address.domain } : null)), now);
    } else {
      const list = await lists.getList(key.accountId, body.listId as string);
      if (!list) return { kind: 'refused', code: 'list_not_found' };
      if (list.state !== 'ready') return { kind: 'refused', code: 'list_not_ready', message: `The list is ${list.state}, not ready.` };
      const entries = await lists.readListEntries(list.id);
      total = entries.length;
      // An invalid address inside a stored list is a `rejected` item, not a 400 (DESIGN.md §5).
      items = dedupe(
        entries.map((e) => {
          const p = parseAddress(e);
          return p.ok ? { email: p.address.normalized, domain: p.address.domain } : { email: e.trim(), domain: '', rejected: p.error };
        }),
        now,
      );
    }
    const outcome = await batches.create({
      accountId: key.accountId,
      keyId: key.keyId,
      mode: body.emails !== undefined ? 'emails' : 'list',
      listId: body.listId ?? null,
      total,
      items,
      billable: key.mode === 'live',
      idempotency: idempotencyClaim(BATCH_ROUTE, key.mode, idempotencyKey, body, now),
      now,
      retentionDays: this.options.retentionDays,
    });
    switch (outcome.kind) {
      case 'idempotency_mismatch':
        return { kind: 'refused', code: 'idempotency_key_reused' };
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
}

function dedupe(entries: Array<{ email: string; domain: string; rejected?: SyntaxError } | null>, now: Date): NewBatchItem[] {
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
