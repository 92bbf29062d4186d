/**
 * Issue 21, defect 3: the dashboard's sign-in limits under simultaneous attempts, on both stores.
 * The limits were checked before the password hash and recorded after it, so 39 wrong passwords
 * sent at once were all checked (limit 5 per email) and a correct 40th signed in; 300 at once
 * from one address were all hashed (limit 30 per address) while a real owner's sign-in waited
 * 49 s behind them; failed-attempt rows were never purged; one set-password link sent many
 * times queued as many hashes. Attempts are fired at once here, at
 * the service the sign-in page calls (src/service/owners/owner-sign-in.ts), with the real scrypt cost.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { OwnerAuth } from '../../src/service/owners/owner-sign-in.js';
import type { SignInOutcome } from '../../src/service/owners/owner-sign-in.js';
import { createOwner } from '../../src/service/owners/owners.js';
import type { Backend } from '../../src/store/backend.js';
import { BACKENDS, openStore } from '../backends.js';

const PER_EMAIL = 5;
const PER_ADDRESS = 30;
let n = 0;

/** An owner with a password, made as `presend users create` and the set-password page make one. */
async function owner(backend: Backend, auth: OwnerAuth): Promise<{ email: string; password: string }> {
  const accountName = `sign-in-${process.pid}-${++n}`;
  const email = `owner${n}@${accountName}.example`;
  const made = await createOwner(backend, { accountName, email, baseUrl: 'http://127.0.0.1', createAccount: { credits: 0 } });
  assert.equal(made.kind, 'done');
  const token = made.kind === 'done' ? (made.value.link.split('/').at(-1) ?? '') : '';
  const password = `correct horse battery ${n}`;
  assert.equal((await auth.setPassword(token, password)).kind, 'set');
  return { email, password };
}

const tally = (outcomes: readonly SignInOutcome[]) => {
  const t: Record<string, number> = {};
  for (const o of outcomes) {
    const k = o.kind === 'throttled' ? `throttled:${o.reason}` : o.kind;
    t[k] = (t[k] ?? 0) + 1;
  }
  return t;
};

for (const store of BACKENDS) describe(`abuse: sign-in attempts fired at once (${store.name})`, { timeout: 170_000 }, () => {
  let opened: { backend: Backend; close(): Promise<void> } | null = null;
  const skip = store.skip;
  let auth: OwnerAuth;

  before(async () => {
    if (skip) return;
    const outcome = await openStore(store.name);
    opened = outcome;
    auth = new OwnerAuth(outcome.backend, { policy: { perEmail: PER_EMAIL, perAddress: PER_ADDRESS } });
  });
  after(async () => opened?.close());

  test('39 wrong passwords and the right one, at once, for one email: 5 checked, the 40th refused', async (t) => {
    if (skip) return t.skip(skip);
    const o = await owner((opened as { backend: Backend }).backend, auth);
    // From 40 addresses: the email's limit, not an address's, is what must hold.
    const attempts = Array.from({ length: 40 }, (_, i) => auth.signIn(o.email, i < 39 ? `wrong password ${i}` : o.password, `198.51.100.${i}`));
    const outcomes = await Promise.all(attempts);
    assert.deepEqual(tally(outcomes), { refused: PER_EMAIL, 'throttled:failures': 40 - PER_EMAIL }, 'only five passwords checked');
    assert.equal(outcomes[39]?.kind, 'throttled', 'the right password, sent after 39 wrong ones, is not even checked');
  });

  test('300 at once from one address: at most 30 hashed, and an owner elsewhere is served in its turn, not after them', async (t) => {
    if (skip) return t.skip(skip);
    const o = await owner((opened as { backend: Backend }).backend, auth);
    const answered: string[] = [];
    const flood = Array.from({ length: 300 }, (_, i) =>
      auth.signIn(`nobody${i}@flood.example`, 'a guess at a password', '203.0.113.7').then((r) => {
        if (r.kind === 'refused') answered.push('hashed');
        return r;
      }),
    );
    const mine = auth.signIn(o.email, o.password, '192.0.2.1').then((r) => {
      answered.push('owner');
      return r;
    });
    const [outcomes, own] = await Promise.all([Promise.all(flood), mine]);
    const counts = tally(outcomes);
    assert.ok((counts.refused ?? 0) <= PER_ADDRESS, `${counts.refused} hashed for one address: ${JSON.stringify(counts)}`);
    assert.equal((counts.refused ?? 0) + (counts['throttled:failures'] ?? 0) + (counts['throttled:busy'] ?? 0), 300, JSON.stringify(counts));
    assert.equal(own.kind, 'signed_in');
    // Two hashes run at once and the flood's address may have two more waiting: the owner's
    // check is in the next round, so at most those four of the flood are answered before it.
    const before = answered.indexOf('owner');
    assert.ok(before <= 4, `${before} of the flood's hashes were answered before the owner's sign-in (${answered.length - 1} in all)`);
  });

  test('one set-password link sent 20 times at once: at most four hashes (two running, two waiting), one password set, the rest shed', async (t) => {
    if (skip) return t.skip(skip);
    const { backend } = opened as { backend: Backend };
    const accountName = `set-flood-${process.pid}-${++n}`;
    const made = await createOwner(backend, { accountName, email: `owner@${accountName}.example`, baseUrl: 'http://127.0.0.1', createAccount: { credits: 0 } });
    assert.equal(made.kind, 'done');
    const token = made.kind === 'done' ? (made.value.link.split('/').at(-1) ?? '') : '';
    const outcomes = await Promise.all(Array.from({ length: 20 }, (_, i) => auth.setPassword(token, `a long enough password ${i}`)));
    const counts: Record<string, number> = {};
    for (const o of outcomes) counts[o.kind] = (counts[o.kind] ?? 0) + 1;
    assert.equal(counts.set, 1, JSON.stringify(counts));
    assert.ok((counts.set ?? 0) + (counts.invalid_link ?? 0) <= 4, `hashed ${(counts.set ?? 0) + (counts.invalid_link ?? 0)}: ${JSON.stringify(counts)}`);
    assert.equal((counts.busy ?? 0) + (counts.set ?? 0) + (counts.invalid_link ?? 0), 20, JSON.stringify(counts));
  });

  test('failed sign-ins older than a day are purged with the retention', async (t) => {
    if (skip) return t.skip(skip);
    const { backend } = opened as { backend: Backend };
    const scope = `email:purged-${process.pid}-${++n}@example.com`;
    const now = new Date();
    const dayAndMore = new Date(now.getTime() - 25 * 3_600_000);
    const longAgo = new Date(now.getTime() - 30 * 86_400_000);
    assert.ok(await backend.loginThrottle.reserve([{ scope, limit: 1 }], dayAndMore, longAgo));
    assert.equal(await backend.loginThrottle.reserve([{ scope, limit: 1 }], now, longAgo), null, 'kept until the purge');
    const purged = await backend.retention.purgeExpired(now, 30);
    assert.ok(purged.signInFailures >= 1, JSON.stringify(purged));
    assert.ok(await backend.loginThrottle.reserve([{ scope, limit: 1 }], now, longAgo), 'gone after it');
  });
});
