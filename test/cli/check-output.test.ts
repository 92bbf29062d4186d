import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { createCheckOutput } from '../../src/cli/output/check-output.js';
import type { Progress } from '../../src/cli/output/progress.js';
import type { EngineResult } from '../../src/core/types.js';

/** A progress bar that records what it was told (the real one draws only on a terminal). */
function recordingProgress() {
  const calls: string[] = [];
  let active = false;
  const progress: Progress = {
    get active() {
      return active;
    },
    update(label, value, total) {
      active = true;
      calls.push(`${label} ${value}/${total}`);
    },
    status() {},
    clear() {
      if (active) calls.push('clear');
    },
    stop() {
      active = false;
      calls.push('stop');
    },
  };
  return { progress, calls };
}

function result(email: string, envelope: Partial<EngineResult['envelope']>): EngineResult {
  return {
    email,
    input: email,
    envelope: { contract_version: 1, status: 'completed', outcome: 'non_verdict', decision: 'recheck_later', verdict: null, provider_family: null, confidence: null, reasons: [], evidence_class: null, retry: null, billing: { disposition: 'released', credits: 0 }, history: null, ...envelope },
    legacy: { result: 'unknown', reason: '', didYouMean: null },
    score: null,
    verifiedAt: '2026-11-28T00:00:00.000Z',
    attempts: 0,
    providerFamily: 'other',
    didYouMean: null,
    mxHost: null,
  };
}

test('the progress bar shows only once the run has taken a second, and is erased before each streamed row', () => {
  let now = 0;
  const out = new PassThrough();
  const { progress, calls } = recordingProgress();
  const output = createCheckOutput('table', ['a@x.test', 'b@x.test', 'c@x.test'], out, progress, () => now);
  output.add(result('a@x.test', { verdict: 'DELIVERABLE', decision: 'send', confidence: 0.95, outcome: 'actionable_verdict' }));
  assert.deepEqual(calls, [], 'a quick first result: no bar');
  now = 1500;
  output.add(result('b@x.test', { verdict: 'UNDELIVERABLE_NO_MAILBOX', decision: 'suppress', confidence: 0.97 }));
  output.add(result('c@x.test', { status: 'recheck_scheduled', reasons: ['host_throttled'] }));
  output.end();
  assert.deepEqual(calls, ['checking 2/3', 'clear', 'checking 3/3', 'stop']);
  const text = (out.read() as Buffer).toString();
  assert.match(text, /^c@x\.test\s+\(recheck_scheduled\)\s+recheck_later\s+-\s+host_throttled$/m, 'an address its host kept unasked says so');
});
