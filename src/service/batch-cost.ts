/**
 * What a batch from a stored list will cost before it is started (the dashboard's confirmation):
 * the rule of DESIGN.md §3 — a live batch holds one credit per unique address still to verify;
 * an entry that fails the syntax check is final at creation (rejected) and holds nothing;
 * duplicates are verified once; a sandbox batch holds nothing. Counted the way BatchService
 * builds its items: each entry parsed, valid ones compared by their normalised form.
 */
import { parseAddress } from '../core/syntax/address.js';
import type { ListsRole } from '../store/backend.js';
import type { KeyMode, ListRecord } from '../store/store.js';

export interface BatchCost {
  list: ListRecord;
  /** Entries of the list, duplicates and invalid ones included. */
  entries: number;
  /** Valid addresses, each once. */
  unique: number;
  /** Entries that are not addresses (rejected, never billed). */
  invalid: number;
  /** Credits held when the batch starts: `unique` for a live key, 0 for a sandbox key. */
  creditsHeld: number;
}

export async function listBatchCost(lists: ListsRole, accountId: string, listId: string, mode: KeyMode): Promise<BatchCost | null> {
  const list = await lists.getList(accountId, listId);
  if (!list) return null;
  const entries = list.state === 'ready' ? await lists.readListEntries(list.id) : [];
  const unique = new Set<string>();
  let invalid = 0;
  for (const entry of entries) {
    const parsed = parseAddress(entry);
    if (parsed.ok) unique.add(parsed.address.normalized);
    else invalid += 1;
  }
  return { list, entries: entries.length, unique: unique.size, invalid, creditsHeld: mode === 'live' ? unique.size : 0 };
}
