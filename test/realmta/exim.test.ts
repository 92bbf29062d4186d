import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { SmtpTalk } from '../mailworld/smtp-talk.js';
import { skipUnless } from './bed.js';
import { eximUnavailable, startExim } from './exim-bed.js';
import { postfixList } from './lists.js';
import { assertNothingTaken, useBed, verifyListAtBed } from './suite.js';

/**
 * Against Exim 4.96 with the defences its admins turn on (exim-bed.ts): a 1 s delay on each
 * unknown recipient from the 4th of a message, 10 connections per client, 100 recipients per
 * message, stock smtp_accept_max_nonmail. The engine must give every address its verdict,
 * without one delayed RCPT or other limit in Exim's log, and nothing is ever taken.
 */
const skip = skipUnless('Exim', eximUnavailable());

for (const path of [
  { label: 'on loopback', ip: '127.0.78.2', latency: undefined, seed: 21 },
  { label: 'behind an 80 ms round trip', ip: '127.0.78.3', latency: { relayIp: '127.0.78.4', oneWayMs: 40 }, seed: 22 },
]) {
  describe(`real Exim ${path.label}: an ACL delay from the 4th unknown recipient of a message`, { skip }, () => {
    const list = postfixList({ perDomain: 150, unknownShare: 0.25, seed: path.seed });
    const use = useBed(list, () => startExim({ ip: path.ip, domains: list.domains, recipients: [...list.existing] }), path.latency);

    test('300 addresses over two domains, 25 % unknown: every address its verdict, and nothing is taken', async () => {
      await verifyListAtBed(use, list);
      const bed = use.bed();
      const rejected = bed.log().split('\n').filter((l) => /rejected RCPT/.test(l)).length;
      assert.ok(rejected >= 0.2 * list.addresses.length, `Exim refused ${rejected} recipients`);
      assert.doesNotMatch(bed.log(), /<= .* id=|Completed/, 'no message was received');
    });

    test('not one delayed RCPT, too many recipients, nonmail commands or connections in Exim\'s log', () => {
      assert.deepEqual(use.bed().limitLines(), []);
    });
  });
}

describe('the Exim bed itself', { skip }, () => {
  const list = postfixList({ perDomain: 10, unknownShare: 0.5, seed: 23 });
  const use = useBed(list, () => startExim({ ip: '127.0.78.5', domains: list.domains, recipients: [...list.existing] }));

  test('its limit lines recognise the ACL delay on the 4th unknown recipient of one message, and DATA is refused after an accepted one', async () => {
    const bed = use.bed();
    const unknown = list.addresses.filter((a) => !list.existing.has(a)).slice(0, 4);
    assert.equal(unknown.length, 4);
    const talk = await SmtpTalk.open(bed.ip, bed.port);
    assert.equal((await talk.read()).code, 220);
    assert.equal((await talk.command('EHLO probe.test')).code, 250);
    assert.equal((await talk.command('MAIL FROM:<>')).code, 250);
    assert.equal((await talk.command(`RCPT TO:<${[...list.existing][0]}>`)).code, 250);
    for (const address of unknown) assert.equal((await talk.command(`RCPT TO:<${address}>`)).code, 550);
    assert.equal((await talk.command('DATA')).code, 550, 'DATA is refused');
    await talk.command('QUIT');
    talk.close();
    await bed.settle();
    assert.equal(bed.limitLines().length, 1, bed.limitLines().join('\n'));
    assert.match(bed.limitLines()[0] ?? '', /delayed unknown recipient/);
    assertNothingTaken(bed);
  });
});
