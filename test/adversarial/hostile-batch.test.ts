import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { loadConfig } from '../../src/config.js';
import { createEngine, createSandboxEngine } from '../../src/core/index.js';
import { startMailWorld } from '../../src/mailworld/index.js';
import type { MailWorld } from '../../src/mailworld/index.js';
import { allResultItems, startHarness, newIdem, waitFinal } from '../api/harness.js';
import type { Harness } from '../api/harness.js';
import { hostileWorld, TARPIT_FARM_IP } from './hostile-world.js';
import { BACKENDS, openDatabase } from '../backends.js';

/**
 * Hostile mail hosts met by the worker inside a live batch: every item finalizes with the
 * verdict the world's truth names, in bounded time (the test's own timeout) and memory, and
 * the worker goes on to the next batch. The engine's own tests cover each host alone; this is
 * the service level, with everything mixed in one batch.
 */
const SMTP_TIMEOUT_MS = 3000; // far above the 1 s gap of the one-byte banner: only a whole-reply deadline ends it
// The production default: the 2,000-record MX answer of the tarpit farm comes over TCP and is
// parsed whole; 2 s was too little for it on a loaded machine (a dns_timeout, not what this tests).
const DNS_TIMEOUT_MS = 5000;

const NORMAL = ['alice@acme.test', 'nobody@acme.test', 'full.inbox@acme.test', 'over.quota@acme.test', 'blocked.probe@acme.test', 'info@acme.test', 'anyone@catchall.test', 'john@a-only.test', 'x@nullmx.test', 'x@gone.test', 'someone@ymail-like.test'];
const HOSTILE = [
  'alice@tarpit.test', // never a banner
  'alice@slow.test', // banner after 1.5 s
  'alice@trickle.test', // 40 bytes/s banner
  'alice@one-byte.test', // 1 byte/s banner
  'alice@dropped.test', // closes after RCPT
  'alice@endless.test', // endless multi-line reply
  'alice@huge.test', // 4 MiB reply
  'alice@garbled.test', // invalid reply codes
  'alice@tls-broken.test', // TLS fails mid-handshake
  'alice@refused.test',
  'alice@blocked-connect.test',
  'x@cname-loop.test',
  'x@dns-timeout.test',
  'x@servfail.test',
  'alice@big-mx.test', // 2,000 MX records
  'alice@tarpit-farm.test', // 2,000 MX records, all one tarpit
  'alice@probe-tarpit.test', // the catch-all probe is never answered
  'bob@probe-tarpit.test',
];

interface ResultItem {
  email: string;
  presend: { verdict: string | null; outcome: string; reasons: string[]; billing: { disposition: string; credits: number } };
}

async function liveHarness(world: MailWorld, env: Record<string, string>): Promise<Harness> {
  const all = { ...world.env(), PRESEND_SMTP_TIMEOUT_MS: String(SMTP_TIMEOUT_MS), PRESEND_DNS_TIMEOUT_MS: String(DNS_TIMEOUT_MS), ...env };
  return startHarness({ env: all, engines: { live: createEngine(loadConfig(all)), sandbox: createSandboxEngine() } });
}

describe('hostile mail hosts inside a live batch', () => {
  let world: MailWorld;
  before(async () => {
    world = await startMailWorld(hostileWorld(), { truth: { smtpTimeoutMs: SMTP_TIMEOUT_MS } });
  });
  after(async () => world?.close());

  for (const backend of BACKENDS) test(`a batch mixing hostile and normal domains finalizes every item with the truth’s verdict, in bounded memory, and the worker goes on (${backend.name})`, async (t) => {
    if (backend.skip) return t.skip(backend.skip);
    const db = await openDatabase(backend.name);
    const h = await liveHarness(world, { PRESEND_DATABASE_URL: db.url });
    t.after(async () => {
      await h.close();
      await db.drop();
    });
    world.reset();
    const a = await h.newAccount(1_000);
    const emails = [...HOSTILE, ...NORMAL];
    const rssBefore = process.memoryUsage().rss;
    const created = await h.call('POST', '/v1/requests', { key: a.live, idem: newIdem(), body: { emails } });
    assert.equal(created.status, 202, JSON.stringify(created.body));
    const final = await waitFinal(h, a.live, created.body.request.id, 90_000);
    assert.equal(final.request.state, 'completed');
    assert.equal(final.counters.completed, emails.length);
    assert.equal(final.counters.pending, 0);

    const items = await allResultItems<ResultItem>(h, a.live, created.body.request.id);
    assert.deepEqual(items.map((i) => i.email).sort(), [...emails].sort());
    const wrong = items.filter((i) => i.presend.verdict !== world.expectedVerdict(i.email)).map((i) => `${i.email}: ${i.presend.verdict} (${i.presend.reasons.join(',')}) ≠ ${world.expectedVerdict(i.email)}`);
    assert.deepEqual(wrong, []);
    // Hostile hosts end in non-verdicts, released and never billed.
    for (const item of items.filter((i) => HOSTILE.includes(i.email) && i.presend.outcome === 'non_verdict')) {
      assert.deepEqual(item.presend.billing, { disposition: 'released', credits: 0 }, item.email);
    }
    const actionable = items.filter((i) => i.presend.outcome === 'actionable_verdict').length;
    assert.equal((await h.backend.ledger.getBalance(a.accountId)).debited, actionable);

    // Thousands of MX names that all lead to one tarpit: one address, tried once, not once per name.
    const farmSessions = world.recorder.sessions().filter((s) => s.ip === TARPIT_FARM_IP).length;
    assert.ok(farmSessions >= 1 && farmSessions <= 2, `${farmSessions} sessions to the tarpit farm`);
    // 4 MiB replies and endless lines are read under a cap, not kept.
    const growth = process.memoryUsage().rss - rssBefore;
    assert.ok(growth < 200 * 1024 * 1024, `RSS grew by ${(growth / 1048576).toFixed(1)} MiB`);

    // The worker is not stuck on anything it met: the next batch finalizes too.
    const next = await h.call('POST', '/v1/requests', { key: a.live, idem: newIdem(), body: { emails: ['bob.smith@acme.test', 'nobody2@acme.test'] } });
    assert.equal(next.status, 202);
    const nextFinal = await waitFinal(h, a.live, next.body.request.id);
    assert.equal(nextFinal.counters.completed, 2);
  });

  test('with PRESEND_ALLOW_PRIVATE_MX off, MX answers on loopback, private, link-local and IPv6 loopback addresses are refused and nothing connects', async (t) => {
    const h = await liveHarness(world, { PRESEND_ALLOW_PRIVATE_MX: 'false' });
    t.after(() => h.close());
    world.reset();
    const a = await h.newAccount(100);
    const emails = [
      'alice@acme.test', // served, but on 127.0.0.x
      'alice@private-mx.test', // 127.255.255.252, nothing served
      'alice@linklocal-mx.test', // 127.255.255.251, nothing served
      'alice@ipv6-loopback-mx.test', // ::1
      'alice@loopback-unserved.test',
      'alice@implicit-loopback.test', // no MX, A 127.0.0.1
      'alice@metadata-mx.test', // 169.254.169.254
      'x@private-farm.test', // 2,000 MX records on private addresses
      'alice@tarpit-farm.test', // 2,000 MX records on 127.0.9.9
    ];
    const created = await h.call('POST', '/v1/requests', { key: a.live, idem: newIdem(), body: { emails } });
    assert.equal(created.status, 202);
    await waitFinal(h, a.live, created.body.request.id);
    const items = await allResultItems<ResultItem>(h, a.live, created.body.request.id);
    assert.equal(items.length, emails.length);
    for (const item of items) {
      assert.equal(item.presend.verdict, 'UNKNOWN', item.email);
      assert.deepEqual(item.presend.reasons, ['private_mx_refused'], item.email);
      assert.deepEqual(item.presend.billing, { disposition: 'released', credits: 0 }, item.email);
    }
    assert.equal(world.recorder.sessionCount(), 0, 'the recorder saw a connection');
    assert.equal((await h.backend.ledger.getBalance(a.accountId)).debited, 0);
  });
});
