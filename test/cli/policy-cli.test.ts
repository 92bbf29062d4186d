/**
 * `presend policy show|set` as an operator runs it on a temp SQLite store: a change is a new
 * version named `cli:<user>`, a refused combination exits 2 with the reason and writes nothing,
 * an unknown account exits 1, and the store holds the version a server reads as each check is
 * decided (test/api/policy.test.ts follows it through the routes).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { presend } from '../service/processes.js';
import { openBackend } from '../../src/store/open-backend.js';

test('a policy is shown and changed from the command line, versioned, with refusals as exit codes', { timeout: 120_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'presend-policy-cli-'));
  try {
    const env = { PRESEND_DATABASE_URL: `sqlite:${join(dir, 'p.db')}` };
    assert.equal((await presend(['accounts', 'create', 'acme'], env)).code, 0);
    const fresh = await presend(['policy', 'show', '--account', 'acme'], env);
    assert.equal(fresh.code, 0, fresh.stderr);
    assert.match(fresh.stdout, /Version 0: the default table/);
    assert.match(fresh.stdout, /ROLE\s+send_with_caution\s+\(default\)/);

    const [set, refused, unknown, nothing] = await Promise.all([
      presend(['policy', 'set', '--account', 'acme', '--decision', 'ROLE=send', '--decision', 'catch_all=manual_review', '--min-confidence', '0.8'], env),
      presend(['policy', 'set', '--account', 'acme', '--decision', 'TRANSIENT=send'], env),
      presend(['policy', 'set', '--account', 'nobody', '--decision', 'ROLE=send'], env),
      presend(['policy', 'set', '--account', 'acme'], env),
    ]);
    assert.equal(set.code, 0, set.stderr);
    assert.match(set.stdout, /Version 1, set by cli:\S+ at /);
    assert.match(set.stdout, /ROLE\s+send\s+\(policy rule\)/);
    assert.match(set.stdout, /CATCH_ALL\s+manual_review\s+\(policy rule\)/);
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, /TRANSIENT cannot be "send": a non-verdict says nothing about the mailbox/);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /no account named "nobody"/);
    assert.equal(nothing.code, 2);

    const second = await presend(['policy', 'set', '--account', 'acme', '--decision', 'ROLE=default', '--min-confidence', 'none', '--json'], env);
    assert.equal(second.code, 0, second.stderr);
    assert.deepEqual(JSON.parse(second.stdout), { ...JSON.parse(second.stdout), version: 2, decisions: { CATCH_ALL: 'manual_review' }, minConfidence: null });
    const shown = JSON.parse((await presend(['policy', 'show', '--account', 'acme', '--json'], env)).stdout) as { version: number; history: Array<{ version: number; changedBy: string }> };
    assert.equal(shown.version, 2);
    assert.deepEqual(shown.history.map((v) => v.version), [2, 1]);
    assert.match(shown.history[1]?.changedBy ?? '', /^cli:/);

    // What the store holds is what a server on it reads as each check is decided.
    const backend = await openBackend(env.PRESEND_DATABASE_URL);
    try {
      const account = await backend.accounts.findAccountByName('acme');
      assert.ok(account);
      assert.deepEqual((await backend.policies.current(account.id)).rules, { decisions: { CATCH_ALL: 'manual_review' }, minConfidence: null });
    } finally {
      await backend.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
