/**
 * docs/webhooks.md against the code: its library-free verification function, run as printed,
 * accepts what the sender signs (both signatures during a rotation) and refuses a changed body, a
 * wrong secret or an old timestamp; its retry table is the schedule the sender keeps.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { markdownTable, readDoc } from './markdown.js';
import { generateWebhookSecret, webhookHeaders } from '../../src/service/webhooks/signing.js';
import { RETRY_DELAYS_MS } from '../../src/service/webhooks/retry-schedule.js';

type Verify = (secret: string, headers: Record<string, string>, rawBody: string, toleranceSeconds?: number) => boolean;

/** The function of the doc's "Node.js alone" block, evaluated with the two imports it names. */
function documentedVerify(): Verify {
  const block = [...readDoc('docs/webhooks.md').matchAll(/^```js\n([\s\S]*?)^```/gm)].map((m) => m[1] ?? '').find((code) => code.includes('function verifyPresendWebhook'));
  assert.ok(block, 'docs/webhooks.md shows verifyPresendWebhook');
  const body = block.replace(/^import .*$/m, '');
  return new Function('createHmac', 'timingSafeEqual', `${body}\nreturn verifyPresendWebhook;`)(createHmac, timingSafeEqual) as Verify;
}

test('the verification function of docs/webhooks.md accepts what Presend signs and refuses the rest', () => {
  const verify = documentedVerify();
  const current = generateWebhookSecret();
  const previous = generateWebhookSecret();
  const body = '{"type":"batch.completed","timestamp":"2026-11-27T23:58:04.120Z","data":{"requestId":"r"}}';
  const headers = webhookHeaders({ current, previous }, 'msg_0123', new Date(), body);
  assert.equal(verify(current, headers, body), true);
  assert.equal(verify(previous, headers, body), true, 'during a rotation the previous secret verifies too');
  assert.equal(verify(generateWebhookSecret(), headers, body), false);
  assert.equal(verify(current, headers, body.replace('"r"', '"s"')), false);
  const old = webhookHeaders({ current, previous: null }, 'msg_0123', new Date(Date.now() - 3_600_000), body);
  assert.equal(verify(current, old, body), false, 'an hour-old timestamp is refused');
});

test('the retry table of docs/webhooks.md is the schedule the sender keeps', () => {
  const unit: Record<string, number> = { s: 1000, min: 60_000, h: 3_600_000 };
  const waits = markdownTable('docs/webhooks.md', 'attempt')
    .slice(1)
    .map(([, after]) => {
      const m = /^(\d+) (s|min|h)$/.exec(after ?? '');
      assert.ok(m, `"${after}" reads as a wait`);
      return Number(m[1]) * (unit[m[2] ?? ''] ?? 0);
    });
  assert.deepEqual(waits, RETRY_DELAYS_MS);
});
