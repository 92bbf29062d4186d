/**
 * Admin refusals are data (issue #11, layers point down): every refusal of the admin service is
 * returned as `{kind: 'refused', reason, message}`, never thrown, never an exit code; the CLI maps
 * the reason to its exit code.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openBackend } from '../../src/store/open-backend.js';
import type { Backend } from '../../src/store/backend.js';
import { createAccount, createKey, grantCredits, importList, keysToRevoke, listKeys, revokeKeys, setRateLimit } from '../../src/service/operations/admin.js';
import type { AdminOutcome, AdminRefusalReason } from '../../src/service/operations/admin.js';
import { exitCodeForRefusal } from '../../src/cli/output/admin-command.js';
import { EXIT } from '../../src/cli/output/exit-codes.js';

function assertRefused<T>(outcome: AdminOutcome<T>, reason: AdminRefusalReason, message: RegExp): void {
  assert.equal(outcome.kind, 'refused', JSON.stringify(outcome));
  if (outcome.kind === 'refused') {
    assert.equal(outcome.reason, reason);
    assert.match(outcome.message, message);
    assert.deepEqual(Object.keys(outcome).sort(), ['kind', 'message', 'reason'], 'a refusal is plain data: no exit code, no stack');
  }
}

async function* addresses(...emails: string[]): AsyncGenerator<string> {
  yield* emails;
}

async function* breaksAfter(email: string): AsyncGenerator<string> {
  yield email;
  throw new Error('line 3: an unterminated quote');
}

describe('admin operations', () => {
  let backend: Backend;
  before(async () => {
    backend = await openBackend('sqlite::memory:');
  });
  after(async () => backend.close());

  test('what they do is returned as done with its value', async () => {
    const created = await createAccount(backend, 'acme', 10);
    assert.equal(created.kind, 'done');
    const key = await createKey(backend, 'acme', 'live');
    assert.equal(key.kind === 'done' && key.value.key.startsWith('ps_live.'), true);
    const listed = await listKeys(backend, 'acme');
    assert.equal(listed.kind === 'done' && listed.value.length, 1);
    const found = await keysToRevoke(backend, 'acme', key.kind === 'done' ? key.value.record.displayPrefix : '');
    assert.equal(found.kind, 'done');
    if (found.kind === 'done') assert.equal(await revokeKeys(backend, found.value), 1);
    const granted = await grantCredits(backend, 'acme', 5);
    assert.equal(granted.kind === 'done' && granted.value.available, 15);
    const list = await importList(backend, 'acme', addresses('a@example.com', 'not an address'), 'two');
    assert.equal(list.kind === 'done' && list.value.state, 'ready');
  });

  test('every refusal is returned with its reason and message, none is thrown', async () => {
    assertRefused(await createAccount(backend, '  ', 1), 'invalid_argument', /must not be empty/);
    assertRefused(await createAccount(backend, 'x', -1), 'invalid_argument', /whole number/);
    await createAccount(backend, 'taken', 0);
    assertRefused(await createAccount(backend, 'taken', 0), 'already_exists', /already exists/);
    assertRefused(await createKey(backend, 'nobody', 'test'), 'not_found', /no account named "nobody"/);
    assertRefused(await listKeys(backend, 'nobody'), 'not_found', /nobody/);
    assertRefused(await keysToRevoke(backend, 'taken', 'ps_live'), 'invalid_argument', /display prefix/);
    assertRefused(await keysToRevoke(backend, 'taken', 'ps_live.'), 'not_found', /no active key/);
    assertRefused(await keysToRevoke(backend, 'taken', 'ps_live.Zz9'), 'not_found', /no active key/);
    assertRefused(await setRateLimit(backend, 'taken', 5, null), 'invalid_argument', /both/);
    assertRefused(await setRateLimit(backend, 'taken', 0, 1), 'invalid_argument', /at least 1/);
    assertRefused(await grantCredits(backend, 'taken', 1.5), 'invalid_argument', /whole number/);
    assertRefused(await grantCredits(backend, 'nobody', 1), 'not_found', /nobody/);
    assertRefused(await importList(backend, 'nobody', addresses('a@example.com'), null), 'not_found', /nobody/);
    assertRefused(await importList(backend, 'taken', addresses(), null), 'empty_input', /marked failed.*no addresses/);
    assertRefused(await importList(backend, 'taken', breaksAfter('a@example.com'), null), 'unreadable_input', /marked failed.*line 3: an unterminated quote/);
  });

  test('a store failure is no refusal: it is thrown', async () => {
    const closed = await openBackend('sqlite::memory:');
    await closed.close();
    await assert.rejects(createAccount(closed, 'acme', 1));
  });

  test('the CLI gives each reason its exit code: a bad argument is a usage error, unreadable or empty input is bad input', () => {
    const code = (reason: AdminRefusalReason) => exitCodeForRefusal({ kind: 'refused', reason, message: '' });
    assert.deepEqual(
      (['invalid_argument', 'not_found', 'already_exists', 'unreadable_input', 'empty_input'] as const).map(code),
      [EXIT.usage, EXIT.failure, EXIT.failure, EXIT.badInput, EXIT.badInput],
    );
  });
});
