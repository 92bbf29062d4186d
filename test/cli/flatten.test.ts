import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { parse } from 'csv-parse/sync';
import { RESULT_COLUMNS, flattenResultItem } from '../../src/cli/output/flatten.js';
import { stringify } from 'csv-stringify/sync';
import type { ResultItem } from '../../src/client/index.js';

const item: ResultItem = {
  email: 'jane@gmial.com',
  checkedAt: '2026-01-01T00:00:00.000Z',
  state: 'completed',
  score: 91,
  subStatus: 'smtp_rcpt_accepted',
  reasonCodes: ['smtp_rcpt_accepted', 'possible_typo'],
  decision: { result: 'deliverable', reason: 'smtp_rcpt_accepted', didYouMean: 'jane@gmail.com' },
  presend: {
    contract_version: 1,
    status: 'completed',
    outcome: 'actionable_verdict',
    decision: 'send',
    verdict: 'DELIVERABLE',
    provider_family: 'google',
    confidence: 0.91,
    reasons: ['smtp_rcpt_accepted', 'possible_typo'],
    evidence_class: 'smtp_rcpt',
    retry: null,
    billing: { disposition: 'debited', credits: 1 },
    history: null,
  },
};

describe('flattening a result for CSV', () => {
  test('the envelope main fields become one column each, reasons joined with ;', () => {
    assert.deepEqual(flattenResultItem(item), {
      email: 'jane@gmial.com',
      state: 'completed',
      decision: 'send',
      verdict: 'DELIVERABLE',
      confidence: '0.91',
      score: '91',
      reasons: 'smtp_rcpt_accepted;possible_typo',
      evidence_class: 'smtp_rcpt',
      provider_family: 'google',
      billing_disposition: 'debited',
      billing_credits: '1',
      did_you_mean: 'jane@gmail.com',
      checked_at: '2026-01-01T00:00:00.000Z',
    });
  });

  test('nulls become empty cells and a row survives a CSV round trip', () => {
    const pending: ResultItem = { ...item, score: null, decision: null, presend: { ...item.presend!, decision: null, verdict: null, confidence: null, reasons: [] } };
    const row = flattenResultItem(pending);
    assert.equal(row.decision, '');
    assert.equal(row.confidence, '');
    assert.equal(row.did_you_mean, '');
    const csv = stringify([[...RESULT_COLUMNS], RESULT_COLUMNS.map((c) => row[c])]);
    const [header, values] = parse(csv) as string[][];
    assert.deepEqual(header, [...RESULT_COLUMNS]);
    assert.equal(values?.[0], 'jane@gmial.com');
  });
});
