import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_BATCH_EMAILS, batchIdempotencyKey, planBatches } from '../../src/client/index.js';

describe('planBatches: any number of addresses into batches the interface accepts', () => {
  test('invalid addresses are set aside with their position, duplicates are removed by the normalised form', () => {
    const plan = planBatches(['a@Example.com', 'bad@', 'a@example.COM', ' b@example.com ', 'A@example.com']);
    // The API refuses an address wrapped in spaces (docs/address-syntax.md): the SDK sets it aside
    // too rather than trim it (a file reader trims cells and says so before it gets here).
    assert.deepEqual(plan.invalid, [
      { index: 1, email: 'bad@', error: 'empty_domain' },
      { index: 3, email: ' b@example.com ', error: 'surrounding_whitespace' },
    ]);
    assert.equal(plan.total, 5);
    assert.equal(plan.unique, 2, 'the local part keeps its case; the domain does not');
    assert.equal(plan.duplicates, 1);
    assert.deepEqual(plan.batches[0]?.emails, ['a@example.com', 'A@example.com']);
  });

  test('batches hold at most 10,000 unique addresses; duplicates do not count against the cap', () => {
    const addresses = Array.from({ length: 25_000 }, (_, i) => `user${i % 20_001}@example.com`);
    const plan = planBatches(addresses);
    assert.equal(plan.unique, 20_001);
    assert.deepEqual(plan.batches.map((batch) => batch.emails.length), [MAX_BATCH_EMAILS, MAX_BATCH_EMAILS, 1]);
    assert.throws(() => planBatches(addresses, { batchSize: 10_001 }), RangeError);
  });

  test('the same addresses give the same Idempotency-Keys, so a re-run replays; another namespace gives new ones', () => {
    const addresses = Array.from({ length: 12 }, (_, i) => `x${i}@example.com`);
    const first = planBatches(addresses, { batchSize: 5 });
    const again = planBatches([...addresses, addresses[0] as string], { batchSize: 5 });
    assert.deepEqual(
      again.batches.map((batch) => batch.idempotencyKey),
      first.batches.map((batch) => batch.idempotencyKey),
    );
    assert.equal(new Set(first.batches.map((batch) => batch.idempotencyKey)).size, 3, 'each batch its own key');
    const fresh = planBatches(addresses, { batchSize: 5, idempotencyNamespace: 'run-2' });
    assert.ok(fresh.batches.every((batch, i) => batch.idempotencyKey !== first.batches[i]?.idempotencyKey));
    assert.equal(first.batches[0]?.idempotencyKey, batchIdempotencyKey(first.batches[0]?.emails ?? []));
  });
});

describe('planBatches counts unique addresses as the service does (the MCP max_credits gate relies on it)', () => {
  test('an internationalised domain counts once in Unicode and in punycode', () => {
    assert.equal(planBatches(['a@bücher.de', 'a@xn--bcher-kva.de', 'a@BÜCHER.de']).unique, 1);
  });

  test('addresses that differ only in domain case are one; the local part keeps its case', () => {
    assert.equal(planBatches(['a@example.com', 'a@EXAMPLE.com', 'A@example.com', 'b@example.com']).unique, 3);
  });
});
