import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { skipUnless } from './bed.js';
import { harakaUnavailable, startHaraka } from './haraka-bed.js';
import { postfixList } from './lists.js';
import { useBed, verifyListAtBed } from './suite.js';

/**
 * How the engine reads a Haraka whose karma plugin holds every reply of a session once the
 * client's score is negative (its first unknown recipient), and later sessions from EHLO on
 * (haraka-bed.ts): every reply is slow here, so what pays is few, full sessions — never
 * one-recipient sessions, each paying the held banner, EHLO, MAIL and QUIT — within the 20
 * recipients and 3 connections its limit plugin allows.
 */
const skip = skipUnless('Haraka', harakaUnavailable());

/** Recipients per session from Haraka's own summary line (`rcpts=accepted/tempfailed/rejected`), sessions that asked any. */
function recipientsPerSession(log: string): number[] {
  return [...log.matchAll(/ rcpts=(\d+)\/(\d+)\/(\d+)/g)].map((m) => Number(m[1]) + Number(m[2]) + Number(m[3])).filter((n) => n > 0);
}

describe('real Haraka with karma and limit: every reply slow', { skip }, () => {
  const list = postfixList({ perDomain: 30, unknownShare: 0.25, seed: 33 });
  const use = useBed(list, () => startHaraka({ ip: '127.0.79.6', domains: list.domains, recipients: [...list.existing] }));

  test('60 addresses, 25 % unknown: every verdict right, no limit refusal, and after the first sessions full ones (no one-recipient sessions)', async () => {
    await verifyListAtBed(use, list);
    const bed = use.bed();
    assert.deepEqual(bed.limitLines(), []);
    const perSession = recipientsPerSession(bed.log());
    // The first sessions show the slowdown (its start cuts them) and the last take what is left;
    // the rest are full. One-recipient sessions, each paying the held setup, were the old way.
    const small = perSession.filter((n) => n < 5).length;
    assert.ok(small <= 4, `${small} sessions of fewer than 5 recipients: ${perSession.join(' ')}`);
    assert.ok(perSession.length <= Math.ceil(list.addresses.length / 20) + 4, `${perSession.length} sessions: ${perSession.join(' ')}`);
    assert.ok(Math.max(...perSession) <= 20, `the per-connection cap of 20 is kept: ${perSession.join(' ')}`);
  });
});

describe('real Haraka with karma and limit behind an 80 ms round trip: the first slow sessions awaited', { skip }, () => {
  const list = postfixList({ perDomain: 30, unknownShare: 0.25, seed: 34 });
  const use = useBed(list, () => startHaraka({ ip: '127.0.79.7', domains: list.domains, recipients: [...list.existing] }), { relayIp: '127.0.79.8', oneWayMs: 40 });

  test('60 addresses: every verdict right and no refusal by limit — the first sessions, slowed from their first unknown, are not dropped (Haraka would go on counting them)', async () => {
    await verifyListAtBed(use, list);
    const bed = use.bed();
    assert.deepEqual(bed.limitLines(), [], 'no "Too many concurrent connections" and no limit tarpit');
    assert.ok(Math.max(...recipientsPerSession(bed.log())) <= 20, 'the per-connection cap of 20 is kept');
  });
});
