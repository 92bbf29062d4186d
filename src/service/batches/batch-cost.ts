/**
 * What a batch from a stored list will cost before it is started (the dashboard's confirmation):
 * the rule of docs/design.md §3 as docs/architecture.md ("Decisions beyond docs/design.md") extends it for lists — a live batch over a list holds one credit per list entry when it
 * starts (its items are written from the list afterwards, chunk by chunk); the credits of
 * duplicates and of entries that fail the syntax check (rejected, never billed) come back as their
 * chunks are written, so the batch ends up holding one per unique address; a sandbox batch holds
 * nothing. Counted the way the fill builds its items: each entry parsed, valid ones compared by
 * their normalised form, read a slice at a time so a long list does not hold the event loop.
 */
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { parseAddress } from '../../core/syntax/address.js';
import type { ListRecord, ListsRole } from '../../store/roles/lists.js';
import type { KeyMode } from '../../store/api-keys.js';

export interface BatchCost {
  list: ListRecord;
  /** Entries of the list, duplicates and invalid ones included. */
  entries: number;
  /** Valid addresses, each once. */
  unique: number;
  /** Entries that are not addresses (rejected, never billed). */
  invalid: number;
  /** Credits held when the batch starts: `entries` for a live key, 0 for a sandbox key. */
  creditsHeld: number;
  /** Of those, the credits that come back once the list is written (duplicates and invalid entries). */
  creditsReturned: number;
}

/** Entries read and parsed per turn of the event loop. */
const SLICE = 5_000;

export async function listBatchCost(lists: ListsRole, accountId: string, listId: string, mode: KeyMode): Promise<BatchCost | null> {
  const list = await lists.getList(accountId, listId);
  if (!list) return null;
  const unique = new Set<string>();
  let invalid = 0;
  let entries = 0;
  for (let from = 0; list.state === 'ready'; ) {
    const slice = await lists.readListSlice(list.id, from, SLICE);
    for (const { email } of slice) {
      const parsed = parseAddress(email);
      if (parsed.ok) unique.add(parsed.address.normalized);
      else invalid += 1;
    }
    entries += slice.length;
    if (slice.length < SLICE) break;
    from = (slice[slice.length - 1] as { position: number }).position + 1;
    await yieldToLoop();
  }
  const live = mode === 'live';
  return { list, entries, unique: unique.size, invalid, creditsHeld: live ? entries : 0, creditsReturned: live ? entries - unique.size : 0 };
}
