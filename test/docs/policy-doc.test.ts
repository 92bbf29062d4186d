/** docs/policy.md against the code: its table of allowed decisions is the one the service enforces. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { markdownTable } from './markdown.js';
import { PUBLIC_VERDICTS } from '../../src/core/types.js';
import { allowedDecisions } from '../../src/service/policy/decision-policy.js';

const codes = (cell: string): string[] => [...cell.matchAll(/`([a-z_A-Z]+)`/g)].map((m) => m[1] ?? '');

test('the table of docs/policy.md lists, per verdict, its default and exactly the decisions a policy may give it', () => {
  const rows = markdownTable('docs/policy.md', 'verdict');
  assert.deepEqual(rows.map((r) => codes(r[0] ?? '')[0]), [...PUBLIC_VERDICTS]);
  for (const row of rows) {
    const verdict = codes(row[0] ?? '')[0] as (typeof PUBLIC_VERDICTS)[number];
    assert.deepEqual([...codes(row[1] ?? ''), ...codes(row[2] ?? '')], allowedDecisions(verdict), verdict);
  }
});
