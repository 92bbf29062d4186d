import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { backoffDelay, nextDelay, parseRetryAfter, DEFAULT_RETRY_POLICY } from '../../src/client/retry-policy.js';

describe('retry policy', () => {
  test('Retry-After in seconds and as an HTTP date both become milliseconds', () => {
    assert.equal(parseRetryAfter('3'), 3000);
    const now = Date.parse('2026-01-01T00:00:00Z');
    assert.equal(parseRetryAfter('Thu, 01 Jan 2026 00:00:05 GMT', now), 5000);
    assert.equal(parseRetryAfter(null), null);
    assert.equal(parseRetryAfter('soon'), null);
  });

  test('the wait after a 429 is never shorter than the server asked for', () => {
    for (let retry = 0; retry < 3; retry += 1) {
      const delay = nextDelay(DEFAULT_RETRY_POLICY, retry, 0, 7000);
      assert.equal(delay, 7000);
    }
  });

  test('a Retry-After beyond the wait budget ends the retries instead of waiting less', () => {
    const policy = { ...DEFAULT_RETRY_POLICY, maxRetryWaitMs: 5000 };
    assert.equal(nextDelay(policy, 0, 0, 6000), null);
    assert.equal(nextDelay(policy, 1, 4000, 2000), null);
    assert.equal(nextDelay(policy, 1, 3000, 2000), 2000);
  });

  test('retries stop after maxRetries', () => {
    const policy = { ...DEFAULT_RETRY_POLICY, maxRetries: 2 };
    assert.notEqual(nextDelay(policy, 1, 0, null), null);
    assert.equal(nextDelay(policy, 2, 0, null), null);
  });

  test('back-off doubles per retry, stays within its cap and keeps at least half of each step', () => {
    const policy = { ...DEFAULT_RETRY_POLICY, baseBackoffMs: 100, maxBackoffMs: 1000 };
    assert.equal(backoffDelay(policy, 0, () => 0), 50);
    assert.equal(backoffDelay(policy, 0, () => 1), 100);
    assert.equal(backoffDelay(policy, 2, () => 1), 400);
    assert.equal(backoffDelay(policy, 10, () => 1), 1000);
    assert.equal(backoffDelay(policy, 10, () => 0), 500);
  });
});
