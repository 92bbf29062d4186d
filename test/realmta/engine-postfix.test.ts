import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';
import { skipUnless } from './bed.js';
import { postfixList, type RealMtaList } from './lists.js';
import { postfixUnavailable, startPostfix } from './postfix-bed.js';
import { assertVerdicts, useBed, verifyAll } from './suite.js';

/**
 * How the engine reads a stock Postfix (docs/engine-sessions.md): first contact under its
 * soft error limit, a session that has reached its room ends with QUIT, and replies about one
 * mailbox — sent by Postfix itself through an access map, worded as the providers word them —
 * stay with that address.
 */
const skip = skipUnless('Postfix', postfixUnavailable());

/**
 * Errors per session as Postfix itself counts them: its `disconnect from …` line ends with
 * `commands=OK/ALL` (Postfix ≥ 3.0), every command that was not OK an error.
 */
function postfixErrorsPerSession(log: string): number[] {
  return log
    .split('\n')
    .map((line) => / disconnect from .* commands=(\d+)\/(\d+)/.exec(line))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => Number(m[2]) - Number(m[1]));
}

/** The most sessions Postfix had open at once, from its `connect from` and `disconnect from` lines in their order. */
function mostSessionsAtOnce(log: string): number {
  let open = 0;
  let most = 0;
  for (const line of log.split('\n')) {
    if (/ connect from /.test(line)) most = Math.max(most, ++open);
    else if (/ disconnect from /.test(line)) open--;
  }
  return most;
}

function usePostfix(list: RealMtaList, ip: string, mainCf: string[] = []) {
  return useBed(list, () => startPostfix({ ip, domains: list.domains, recipients: [...list.existing], mainCf }));
}

describe('real Postfix: a domain whose every address is gone', { skip }, () => {
  // Every address of gone.test is unknown to Postfix (the list: 100 unknown recipients).
  const gone = postfixList({ perDomain: 100, unknownShare: 1, seed: 3, domains: ['gone.test'] });
  const list: RealMtaList = { ...gone, existing: new Set() };
  const { bed: bedOf, world: worldOf, port } = usePostfix(list, '127.0.77.4');

  test('no session makes more than nine errors, catch-all probe counted (Postfix slows every reply from the tenth), by Postfix\'s own count', async () => {
    const bed = bedOf();
    const results = await verifyAll(worldOf(), port(), list.addresses);
    await bed.settle();
    assertVerdicts(list, results);
    const errors = postfixErrorsPerSession(bed.log());
    assert.ok(errors.length > 0, 'Postfix logged its sessions');
    assert.ok(Math.max(...errors) <= 9, `errors per session: ${errors.join(' ')}`);
    assert.deepEqual(bed.limitLines(), []);
    // Nine errors a session make eleven sessions or more; once the share is known they run side
    // by side (a near path alone would call for two), within the politeness cap of 10.
    const most = mostSessionsAtOnce(bed.log());
    assert.ok(most > 2 && most <= 10, `${most} sessions at once for ${errors.length} sessions`);
  });
});

/**
 * Replies about one mailbox, as providers send them, from a real Postfix: an access map
 * (access(5)) answers these recipients with the provider's code and wording (Postfix puts
 * "<address>: Recipient address rejected:" before the text, as it does for every restriction,
 * and 5.7.1 where the reply has no enhanced code: wording the table reads before that code).
 */
const PROVIDER_REPLIES: ReadonlyArray<[local: string, reply: string, verdict: string]> = [
  ['busy.gmail', '450 4.2.1 The user you are trying to contact is receiving mail at a rate that prevents additional messages from being delivered', 'TRANSIENT'],
  ['busy.gmail.perm', '550 5.2.1 The user you are trying to contact is receiving mail at a rate that prevents additional messages from being delivered', 'TRANSIENT'],
  ['gone.microsoft', '550 5.1.10 RESOLVER.ADR.RecipientNotFound; Recipient not found by SMTP address lookup', 'UNDELIVERABLE_NO_MAILBOX'],
  ['gone.yahoo', "554 delivery error: dd This user doesn't have a yahoo.com account", 'UNDELIVERABLE_NO_MAILBOX'],
  ['full.gmail', '552 5.2.2 The email account that you tried to reach is over quota', 'MAILBOX_FULL'],
  ['full.webde', '550 Benutzer hat das Speichervolumen ueberschritten', 'MAILBOX_FULL'],
];

describe('real Postfix answering as the providers do: a reply about one mailbox stays with that address', { skip }, () => {
  const base = postfixList({ perDomain: 60, unknownShare: 0.25, seed: 21, domains: ['providers.test'] });
  const special = PROVIDER_REPLIES.map(([local]) => `${local}@providers.test`);
  // The specially answered ones exist in the recipient table: only the access map speaks for them.
  const list: RealMtaList = { ...base, addresses: [...special, ...base.addresses], existing: new Set([...base.existing, ...special]) };
  const dir = mkdtempSync(join(tmpdir(), 'presend-access-'));
  chmodSync(dir, 0o755);
  const access = join(dir, 'access');
  writeFileSync(access, PROVIDER_REPLIES.map(([local, reply]) => `${local}@providers.test ${reply}`).join('\n') + '\n');
  chmodSync(access, 0o644);
  after(() => rmSync(dir, { recursive: true, force: true }));
  const { bed: bedOf, world: worldOf, port } = usePostfix(list, '127.0.77.5', [`smtpd_recipient_restrictions = check_recipient_access texthash:${access}`]);

  test('each address gets what its reply says; a busy mailbox is TRANSIENT with a retry window after one ask, and nothing else waits for it', async () => {
    const bed = bedOf();
    const results = await verifyAll(worldOf(), port(), list.addresses);
    await bed.settle();
    for (const [local, , verdict] of PROVIDER_REPLIES) {
      const result = results.get(`${local}@providers.test`);
      assert.equal(result?.envelope.verdict, verdict, `${local}: ${result?.envelope.reasons.join(',')}`);
      if (verdict === 'TRANSIENT') {
        assert.notEqual(result?.envelope.retry, null, `${local} has a retry window`);
        assert.equal(result?.attempts, 1, `${local} was asked once`);
      }
    }
    assertVerdicts(base, new Map(base.addresses.map((a) => [a, results.get(a) as NonNullable<ReturnType<typeof results.get>>])));
    // Each busy mailbox was asked once: Postfix logged one rejection for each.
    for (const local of ['busy.gmail', 'busy.gmail.perm']) {
      const asked = bed.log().split('\n').filter((l) => l.includes(`to=<${local}@providers.test>`)).length;
      assert.equal(asked, 1, `${local} asked ${asked} times`);
    }
    assert.deepEqual(bed.limitLines(), []);
  });
});
