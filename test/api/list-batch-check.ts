/**
 * One sandbox batch over a stored list of `size` addresses, checked end to end: duplicates across
 * fill chunks (the domain in another case, the first kept; an invalid entry again) are not new
 * items, the request completes, and its results hold every address of the list exactly once.
 * Used by test/api/list-batches.test.ts and, at 100,000 addresses with the event loop watched,
 * by test/load/list-batch-blocking.load.ts.
 */
import assert from 'node:assert/strict';
import { allResultItems, newIdem, waitFinal } from './harness.js';
import type { Harness } from './harness.js';

export async function listBatchHoldsEveryAddressOnce(h: Harness, size: number, options: { timeoutMs: number; whileRunning?: { start(): void; stop(): void } }): Promise<void> {
  const a = await h.newAccount(0);
  const emails = Array.from({ length: size }, (_, i) => `person${i}@example${i % 50}.com`);
  const entries = ['not an address', ...emails, 'person7@EXAMPLE7.com', 'not an address', emails[size - 1] as string];
  const list = await h.backend.lists.importList({ accountId: a.accountId, name: 'big', now: new Date(), entries: [entries] });
  // From the creation to the last item made final: what the watcher, if any, looks at.
  options.whileRunning?.start();
  const created = await h.call('POST', '/v1/requests', { key: a.test, idem: newIdem(), body: { listId: list.id } });
  assert.equal(created.status, 202);
  assert.equal(created.body.counters.total, entries.length);
  const final = await waitFinal(h, a.test, created.body.request.id, options.timeoutMs);
  options.whileRunning?.stop();
  assert.equal(final.request.state, 'completed');
  assert.equal(final.counters.total, entries.length);
  assert.equal(final.counters.unique, size + 1);
  assert.equal(final.counters.duplicates, 3);
  const results = (await allResultItems(h, a.test, created.body.request.id)).map((r) => r.email);
  assert.equal(results.length, size + 1, 'one result per unique address');
  assert.equal(new Set(results).size, size + 1, 'no address twice');
  // As many distinct results as expected addresses, none outside them: exactly the list's addresses.
  const expected = new Set([...emails, 'not an address']);
  assert.deepEqual(
    results.filter((r) => !expected.has(r)),
    [],
  );
}
