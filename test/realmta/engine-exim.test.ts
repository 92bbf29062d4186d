import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { skipUnless } from './bed.js';
import { eximUnavailable, startExim } from './exim-bed.js';
import { postfixList, type RealMtaList } from './lists.js';
import { useBed, verifyListAtBed } from './suite.js';

/**
 * How the engine reads an Exim that delays each unknown recipient from the 4th of a message
 * (exim-bed.ts): its greeting names Exim, so no message carries more than three possible
 * refusals — even at a domain whose every address is gone — and behind a far path the engine
 * uses more sessions at once, within Exim's 10 per host.
 */
const skip = skipUnless('Exim', eximUnavailable());

describe('real Exim: a domain whose every address is gone', { skip }, () => {
  const gone = postfixList({ perDomain: 60, unknownShare: 1, seed: 24, domains: ['gone.test'] });
  const list: RealMtaList = { ...gone, existing: new Set() };
  const use = useBed(list, () => startExim({ ip: '127.0.78.6', domains: list.domains, recipients: [] }));

  test('every address its verdict, and not one delayed RCPT in Exim\'s log: three refusals per message at most', async () => {
    await verifyListAtBed(use, list);
    assert.deepEqual(use.bed().limitLines(), []);
    const rejected = use.bed().log().split('\n').filter((l) => /rejected RCPT/.test(l)).length;
    assert.ok(rejected >= list.addresses.length, `Exim refused ${rejected} recipients`);
  });
});

describe('real Exim behind an 80 ms round trip: sessions sized to the path', { skip }, () => {
  const list = postfixList({ perDomain: 100, unknownShare: 0.25, seed: 25 });
  const use = useBed(list, () => startExim({ ip: '127.0.78.7', domains: list.domains, recipients: [...list.existing] }), { relayIp: '127.0.78.8', oneWayMs: 40 });

  test('more than two sessions at once (the far path calls for them), no more than Exim allows, and no limit set off', async () => {
    await verifyListAtBed(use, list);
    assert.deepEqual(use.bed().limitLines(), []);
    const most = use.relay()?.mostAtOnce() ?? 0;
    assert.ok(most > 2 && most <= 10, `${most} sessions at once`);
  });
});
