import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { IncompleteExportError, PresendApiError, PresendNetworkError, PresendResponseError } from '../../src/client/index.js';
import { EXIT, UsageError, exitCodeFor } from '../../src/cli/output/exit-codes.js';
import { redact } from '../../src/cli/output/report-error.js';

describe('exit codes of the caller commands', () => {
  test('each kind of failure maps to its documented code', () => {
    assert.equal(exitCodeFor(new UsageError('bad flag')), EXIT.usage);
    assert.equal(exitCodeFor(new PresendApiError(401, 'unauthorized', 'no', 'r1')), 3);
    assert.equal(exitCodeFor(new PresendApiError(402, 'insufficient_credits', 'no', 'r2')), 4);
    assert.equal(exitCodeFor(new PresendApiError(429, 'rate_limited', 'slow down', 'r3', 2)), 5);
    assert.equal(exitCodeFor(new PresendApiError(404, 'request_not_found', 'no', 'r4')), 1);
    assert.equal(exitCodeFor(new PresendResponseError(401, 'html', null, 'text/html')), 3);
    assert.equal(exitCodeFor(new PresendNetworkError('reset', 'k')), 1);
    assert.equal(exitCodeFor(new IncompleteExportError('repeated_cursor', 'x', 3, 'c')), 1);
    assert.equal(exitCodeFor(new Error('bug')), 1);
  });

  test('a key reflected in a message is redacted before it is printed', () => {
    const key = 'ps_live.' + 'k'.repeat(40);
    assert.equal(redact(`proxy said: bad header ${key}!`, key), 'proxy said: bad header [redacted]!');
    assert.equal(redact('nothing here', null), 'nothing here');
  });
});
