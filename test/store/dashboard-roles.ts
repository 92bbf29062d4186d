/**
 * The dashboard's roles in the store contract suite (test/store/contract.ts runs these cases on
 * every backend): users, owner sessions, login throttling, key management, list files and
 * account views. A behaviour that differs between SQLite and PostgreSQL is a bug in one of them.
 */
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createSandboxEngine } from '../../src/core/index.js';
import type { Backend } from '../../src/store/backend.js';
import { MAX_IMPORT_ATTEMPTS } from '../../src/store/roles/list-files.js';
import { toStoredResult } from '../../src/store/stored-result.js';
import { generateApiKey, hashApiKey } from '../../src/service/keys/key-format.js';

const T0 = new Date('2031-03-01T00:00:00.000Z');
const at = (ms: number) => new Date(T0.getTime() + ms);
let n = 0;
const unique = (p: string) => `${p}-${process.pid}-${Date.now()}-${++n}`;

/** The cases, on the store `current()` returns once the suite's `before` has opened it. */
export function dashboardRoleCases(current: () => Backend): void {
  describe('the dashboard roles', () => {
    let b: Backend;
    let accountId: string;
    let otherAccountId: string;
    before(async () => {
      b = current();
      accountId = (await b.accounts.createAccount({ name: unique('acme'), credits: 10, now: T0 }))!.id;
      otherAccountId = (await b.accounts.createAccount({ name: unique('other'), credits: 0, now: T0 }))!.id;
    });

    test('an email names one owner over all accounts, case-insensitively', async () => {
      const email = `${unique('Ann')}@Example.com`;
      const user = await b.users.createUser({ accountId, email, now: T0 });
      assert.equal(user?.email, email.toLowerCase());
      assert.equal(user?.passwordSetAt, null);
      assert.equal(await b.users.createUser({ accountId: otherAccountId, email: email.toUpperCase(), now: T0 }), null);
      const found = await b.users.findUserByEmail(email.toUpperCase());
      assert.equal(found?.id, user?.id);
      assert.equal(found?.passwordHash, null);
      assert.equal(await b.users.anyUser(), true);
    });

    test('a password link works once, before it expires, and only the newest one of a user works', async () => {
      const user = (await b.users.createUser({ accountId, email: `${unique('bo')}@example.com`, now: T0 }))!;
      await b.users.issuePasswordToken({ userId: user.id, tokenHash: 'old' + user.id, purpose: 'set', now: T0, expiresAt: at(3_600_000) });
      await b.users.issuePasswordToken({ userId: user.id, tokenHash: 'new' + user.id, purpose: 'set', now: T0, expiresAt: at(3_600_000) });
      assert.equal(await b.users.findPasswordToken('old' + user.id, at(1)), null, 'an older link stops working');
      assert.equal((await b.users.findPasswordToken('new' + user.id, at(1)))?.user.id, user.id);
      assert.equal(await b.users.findPasswordToken('new' + user.id, at(3_600_001)), null, 'expired');

      await b.ownerSessions.create({ idHash: 'sess' + user.id, userId: user.id, csrfSecret: 's', now: T0, expiresAt: at(86_400_000) });
      const set = await b.users.setPasswordWithToken({ tokenHash: 'new' + user.id, passwordHash: 'scrypt$x', now: at(2) });
      assert.equal(set?.id, user.id);
      assert.equal(set?.passwordSetAt, at(2).toISOString());
      assert.equal((await b.users.findUserByEmail(user.email))?.passwordHash, 'scrypt$x');
      assert.equal(await b.ownerSessions.find('sess' + user.id, at(3), T0), null, 'setting a password ends every session');
      assert.equal(await b.users.setPasswordWithToken({ tokenHash: 'new' + user.id, passwordHash: 'again', now: at(3) }), null, 'used once');
    });

    test('a session is found until it expires or idles, ends alone or with all of its user’s, and shows its flash once', async () => {
      const user = (await b.users.createUser({ accountId, email: `${unique('cy')}@example.com`, now: T0 }))!;
      const make = (id: string) => b.ownerSessions.create({ idHash: id, userId: user.id, csrfSecret: 'secret-' + id, now: T0, expiresAt: at(10_000) });
      await make('a' + user.id);
      await make('b' + user.id);
      await make('c' + user.id);
      const found = await b.ownerSessions.find('a' + user.id, at(1), at(-1));
      assert.equal(found?.user.id, user.id);
      assert.equal(found?.csrfSecret, 'secret-a' + user.id);
      assert.match(found?.accountName ?? '', /^acme-/);
      assert.equal(await b.ownerSessions.find('a' + user.id, at(10_000), at(-1)), null, 'expired');
      assert.equal(await b.ownerSessions.find('a' + user.id, at(1), at(1)), null, 'idle since before the limit');
      await b.ownerSessions.touch('a' + user.id, at(5));
      assert.ok(await b.ownerSessions.find('a' + user.id, at(6), at(4)), 'activity keeps it');

      await b.ownerSessions.setFlash('a' + user.id, 'sealed');
      assert.equal(await b.ownerSessions.takeFlash('a' + user.id), 'sealed');
      assert.equal(await b.ownerSessions.takeFlash('a' + user.id), null);

      await b.ownerSessions.end('a' + user.id);
      assert.equal(await b.ownerSessions.find('a' + user.id, at(1), at(-1)), null);
      assert.ok(await b.ownerSessions.find('b' + user.id, at(1), at(-1)));
      assert.equal(await b.ownerSessions.endAllOf(user.id), 2);
      assert.equal(await b.ownerSessions.find('c' + user.id, at(1), at(-1)), null);
    });

    test('sign-in attempts are reserved per scope up to its limit within the window, released, and cleared by a success', async () => {
      const email = unique('email:dee');
      const ip = unique('ip:127.0.0.9');
      const limits = (emailLimit: number, ipLimit: number) => [
        { scope: email, limit: emailLimit },
        { scope: ip, limit: ipLimit },
      ];
      const first = await b.loginThrottle.reserve(limits(2, 3), at(0), at(-60_000));
      assert.ok(first);
      assert.ok(await b.loginThrottle.reserve(limits(2, 3), at(1000), at(-59_000)));
      assert.equal(await b.loginThrottle.reserve(limits(2, 3), at(2000), at(-58_000)), null, 'the email has its 2');
      assert.ok(await b.loginThrottle.reserve([{ scope: ip, limit: 3 }], at(2000), at(-58_000)), 'the address has room for a third');
      assert.equal(await b.loginThrottle.reserve([{ scope: ip, limit: 3 }], at(2500), at(-57_500)), null, 'refused, and not counted');
      await b.loginThrottle.release(first);
      assert.ok(await b.loginThrottle.reserve(limits(2, 3), at(2600), at(-57_400)), 'a released attempt no longer counts');
      assert.equal(await b.loginThrottle.reserve(limits(2, 3), at(2700), at(-57_300)), null);
      assert.ok(await b.loginThrottle.reserve(limits(2, 3), at(3000), at(1500)), 'only attempts inside the window count');
      await b.loginThrottle.clear(email);
      assert.ok(await b.loginThrottle.reserve([{ scope: email, limit: 1 }], at(3100), at(-56_900)), 'a success clears the email');
    });

    test('a managed key carries its label and last use, is revoked only within its account, and leaves an audit trail', async () => {
      const k = generateApiKey('test');
      const key = await b.keyManagement.createKey({
        accountId,
        hash: k.hash,
        displayPrefix: k.displayPrefix,
        mode: 'test',
        label: 'CRM sync',
        actor: { name: 'ann@example.com' },
        now: at(10),
      });
      assert.equal(key.label, 'CRM sync');
      assert.equal(key.lastUsedAt, null);
      assert.equal((await b.accounts.findActiveKey(hashApiKey(k.key)))?.keyId, key.id, 'the API authenticates it');
      assert.equal((await b.keyManagement.usableKey(accountId, key.id))?.mode, 'test');
      assert.equal(await b.keyManagement.usableKey(otherAccountId, key.id), null);

      await b.keyManagement.noteKeyUse([{ keyId: key.id, at: at(50) }]);
      await b.keyManagement.noteKeyUse([{ keyId: key.id, at: at(40) }]);
      assert.equal((await b.keyManagement.getKey(accountId, key.id))?.lastUsedAt, at(50).toISOString(), 'last use never moves back');

      assert.equal(await b.keyManagement.revokeKey({ accountId: otherAccountId, keyId: key.id, actor: { name: 'mallory' }, now: at(60) }), null);
      assert.ok(await b.accounts.findActiveKey(hashApiKey(k.key)), 'another account cannot revoke it');
      const revoked = await b.keyManagement.revokeKey({ accountId, keyId: key.id, actor: { name: 'bo@example.com' }, now: at(70) });
      assert.equal(revoked?.revokedAt, at(70).toISOString());
      assert.equal(await b.accounts.findActiveKey(hashApiKey(k.key)), null, 'a revoked key no longer authenticates');
      assert.equal(await b.keyManagement.usableKey(accountId, key.id), null);
      const again = await b.keyManagement.revokeKey({ accountId, keyId: key.id, actor: { name: 'bo@example.com' }, now: at(80) });
      assert.equal(again?.revokedAt, at(70).toISOString(), 'revoking twice changes nothing');

      const events = (await b.keyManagement.keyEvents(accountId, 50)).filter((e) => e.keyId === key.id);
      assert.deepEqual(
        events.map((e) => [e.action, e.actor, e.at]),
        [
          ['revoked', 'bo@example.com', at(70).toISOString()],
          ['created', 'ann@example.com', at(10).toISOString()],
        ],
      );
      assert.equal((await b.keyManagement.keyEvents(otherAccountId, 50)).length, 0);
      assert.ok((await b.keyManagement.listKeys(accountId)).some((x) => x.id === key.id && x.revokedAt !== null));
    });

    test('a list file streams back byte for byte, keeps its first bad rows, hands its column choice to one caller and is deleted with its list', async () => {
      const list = await b.lists.createList({ accountId, name: 'leads.csv', now: at(100) });
      await b.listFiles.attachFile({ listId: list.id, accountId, fileName: 'leads.csv', uploadedBy: 'ann@example.com', now: at(100) });
      const lease = { owner: 'node#1', until: at(60_000) };
      const parts = Array.from({ length: 40 }, (_, i) => Buffer.from(`chunk ${i} ` + 'x'.repeat(i * 7)));
      for (const [i, p] of parts.entries()) await b.listFiles.appendFileChunk(list.id, i, p.toString('base64'));
      const back: Buffer[] = [];
      for await (const chunk of b.listFiles.readFile(list.id)) back.push(chunk);
      assert.deepEqual(Buffer.concat(back), Buffer.concat(parts));

      const choices = [{ index: 0, label: '"work"', samples: ['a@x.test'] }, { index: 2, label: '"home"', samples: ['b@y.test'] }];
      await b.listFiles.describeFile(list.id, { sizeBytes: 1234, layoutJson: null, columnChoices: choices });
      assert.deepEqual((await b.listFiles.getFile(accountId, list.id))?.columnChoices, choices);
      assert.equal(await b.listFiles.getFile(otherAccountId, list.id), null);
      assert.equal(await b.listFiles.takeColumnChoice(otherAccountId, list.id, '{}', lease), false);
      const taken = await Promise.all([b.listFiles.takeColumnChoice(accountId, list.id, '{"c":2}', lease), b.listFiles.takeColumnChoice(accountId, list.id, '{"c":0}', lease)]);
      assert.deepEqual(taken.sort(), [false, true], 'one caller takes the choice');
      assert.equal((await b.listFiles.getFile(accountId, list.id))?.columnChoices, null);

      await b.listFiles.recordBadRows(list.id, [{ line: 3, value: 'nope', problem: 'no @' }, { line: 7, value: '', problem: 'empty' }], 3);
      await b.listFiles.recordBadRows(list.id, [{ line: 9, value: 'x@', problem: 'no domain' }, { line: 11, value: 'y', problem: 'no @' }], 3);
      assert.equal((await b.listFiles.getFile(accountId, list.id))?.badRows, 4);
      assert.deepEqual((await b.listFiles.badRows(list.id, 10)).map((r) => r.line), [3, 7, 9]);
      await b.listFiles.recordImportError(list.id, 'a quoted cell never closes', 12);
      const file = await b.listFiles.getFile(accountId, list.id);
      assert.equal(file?.error, 'a quoted cell never closes');
      assert.equal(file?.errorLine, 12);
      assert.equal(file?.sizeBytes, 1234);

      await b.lists.appendListEntries(list.id, ['a@x.test']);
      const listed = await b.listFiles.listLists(accountId, 100);
      assert.equal(listed.find((l) => l.id === list.id)?.file?.fileName, 'leads.csv');
      assert.equal((await b.listFiles.listLists(otherAccountId, 100)).length, 0);

      assert.equal(await b.listFiles.deleteList(otherAccountId, list.id), false);
      assert.equal(await b.listFiles.deleteList(accountId, list.id), true);
      assert.equal(await b.lists.getList(accountId, list.id), null);
      assert.equal(await b.listFiles.getFile(accountId, list.id), null);
      assert.equal(await b.listFiles.deleteList(accountId, list.id), false);
    });

    test('an import from a stored file whose node died is taken over by one caller, its bad rows forgotten, at most MAX_IMPORT_ATTEMPTS runs; then it fails like any lapsed import', async () => {
      const list = await b.lists.createList({ accountId, name: 'resume.csv', now: at(200), lease: { owner: 'node#1', until: at(1_000) } });
      await b.listFiles.attachFile({ listId: list.id, accountId, fileName: 'resume.csv', uploadedBy: 'ann@example.com', now: at(200) });
      await b.listFiles.describeFile(list.id, { sizeBytes: 99, layoutJson: '{"layout":{}}', columnChoices: [{ index: 0, label: 'a', samples: [] }, { index: 1, label: 'b', samples: [] }] });
      // The column is picked in time: the import runs from the stored file, leased to the node that took the choice.
      assert.equal(await b.listFiles.takeColumnChoice(accountId, list.id, '{"layout":{"emailColumn":1},"width":0}', { owner: 'node#1', until: at(5_000) }), true);
      await b.lists.appendListEntries(list.id, ['a@x.test', 'b@x.test'], 0);
      await b.listFiles.recordBadRows(list.id, [{ line: 4, value: 'nope', problem: 'no @' }], 1_000);
      // Its node died: the lease lapses. Ending lapsed imports leaves this one to a serving node.
      assert.equal(await b.leases.endLapsed('listImport', at(6_000)), 0);
      assert.equal((await b.lists.getList(accountId, list.id))?.state, 'importing');

      const take = (owner: string, ms: number, untilMs: number) =>
        b.leases.takeLapsed('listImport', { owner, now: at(ms), until: at(untilMs), limit: 10 }).then((taken) => taken.filter((t) => t.listId === list.id));
      const [first, second] = await Promise.all([take('node#2', 6_000, 60_000), take('node#3', 6_000, 60_000)]);
      assert.equal(first.length + second.length, 1, 'one caller takes it over');
      assert.deepEqual([...first, ...second], [{ listId: list.id, accountId, entries: 2, layoutJson: '{"layout":{"emailColumn":1},"width":0}', sizeBytes: 99 }]);
      assert.equal((await b.listFiles.getFile(accountId, list.id))?.badRows, 0, 'the new run records the bad rows again');
      assert.deepEqual(await b.listFiles.badRows(list.id, 10), []);
      assert.deepEqual(await b.leases.renew('listImport', 'node#1', [list.id], at(70_000)), [list.id], 'the first node, woken, is told it lost the import');
      // A chunk of the stalled first run, expected at position 0, lands nowhere; the new run's does.
      await assert.rejects(b.lists.appendListEntries(list.id, ['a@x.test'], 0), (err: Error) => err.name === 'ImportTakenOver');
      await b.lists.appendListEntries(list.id, ['c@x.test'], 2);
      assert.equal((await b.lists.getList(accountId, list.id))?.entries, 3);

      // Two more deaths: the third run is the last; the next lapse ends it failed instead.
      assert.equal((await take('node#4', 80_000, 90_000)).length, 1);
      assert.deepEqual(await take('node#5', 100_000, 110_000), [], `${MAX_IMPORT_ATTEMPTS} runs, no more`);
      assert.equal((await b.lists.getList(accountId, list.id))?.state, 'failed');
      assert.match((await b.listFiles.getFile(accountId, list.id))?.error ?? '', /import the file again/);
    });

    test('account views read only the account’s own ledger, usage and requests', async () => {
      const acct = (await b.accounts.createAccount({ name: unique('views'), credits: 100, now: at(0) }))!;
      const k = generateApiKey('live');
      const key = await b.keyManagement.createKey({ label: null, actor: { name: 'test setup' }, accountId: acct.id, hash: k.hash, displayPrefix: k.displayPrefix, mode: 'live', now: at(0) });
      const created = await b.batches.create({
        accountId: acct.id,
        keyId: key.id,
        mode: 'emails',
        listId: null,
        total: 3,
        items: [
          { email: 'a@d1.test', domain: 'd1.test' },
          { email: 'b@d1.test', domain: 'd1.test' },
        ],
        billable: true,
        idempotency: { route: 'POST /v1/requests', key: unique('idem'), bodyHash: 'h', expiresAt: at(86_400_000).toISOString() },
        now: at(1000),
        retentionDays: 30,
      });
      assert.equal(created.kind, 'created');
      const requestId = created.kind === 'created' ? created.request.id : '';
      // Other cases of the suite may have left items open: claim until this request's are out.
      const mine: Awaited<ReturnType<Backend['work']['claim']>> = [];
      for (;;) {
        const claimed = await b.work.claim({ owner: 'w', affinity: 'w', now: at(2000), leaseMs: 60_000, limit: 100, affinityGraceMs: 0 });
        mine.push(...claimed.filter((c) => c.requestId === requestId));
        if (claimed.length === 0 || mine.length === 2) break;
      }
      assert.equal(mine.length, 2);
      const engine = createSandboxEngine();
      for (const item of mine) {
        const result = toStoredResult(await engine.verify(item.email.startsWith('a') ? 'deliverable@d1.test' : 'undeliverable@d1.test'));
        await b.batches.recordItemResult({ kind: 'final', itemId: item.itemId, result, now: at(3000), retentionDays: 30 });
      }

      const requests = await b.accountViews.recentRequests(acct.id, { limit: 10 });
      assert.deepEqual(requests.map((r) => [r.id, r.state, r.total, r.unique, r.final]), [[requestId, 'completed', 3, 2, 2]]);
      assert.deepEqual(await b.accountViews.recentRequests(acct.id, { limit: 10, before: requests[0]!.createdAt }), []);
      assert.deepEqual(await b.accountViews.recentRequests(otherAccountId, { limit: 10 }), []);
      assert.equal((await b.accountViews.requestSummary(acct.id, requestId))?.unique, 2);
      assert.equal(await b.accountViews.requestSummary(otherAccountId, requestId), null);

      const verdicts = (await b.accountViews.verdictCounts(acct.id, requestId)).map((v) => `${v.verdict}/${v.decision}:${v.count}`).sort();
      assert.deepEqual(verdicts, ['DELIVERABLE/send:1', 'UNDELIVERABLE_NO_MAILBOX/suppress:1']);
      assert.deepEqual(await b.accountViews.verdictCounts(otherAccountId, requestId), []);

      const ledger = await b.accountViews.ledger(acct.id, { limit: 100 });
      assert.deepEqual(ledger.map((e) => e.kind).sort(), ['debit', 'debit', 'grant', 'hold']);
      assert.ok(ledger.every((e, i) => i === 0 || e.id < ledger[i - 1]!.id), 'newest first');
      const older = await b.accountViews.ledger(acct.id, { limit: 100, beforeId: ledger[1]!.id });
      assert.deepEqual(older.map((e) => e.id), ledger.slice(2).map((e) => e.id));

      assert.deepEqual(await b.accountViews.debitsBetween(acct.id, [at(0), at(2500), at(3000), at(3001), at(9000)]), [0, 0, 2, 0]);
      assert.deepEqual(await b.accountViews.debitsBetween(otherAccountId, [at(0), at(9000)]), [0]);
    });
  });
}
