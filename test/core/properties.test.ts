import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { parseAddress } from '../../src/core/syntax/address.js';
import { ReplyParser, type SmtpReply } from '../../src/core/replies/parse.js';

describe('properties', () => {
  test('parsing never throws, and a normalised address parses to itself', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ maxLength: 80 }), fc.emailAddress(), fc.string({ unit: 'grapheme', maxLength: 40 }), fc.string({ unit: 'binary', maxLength: 40 }).map((s) => `${s}@example.com`)), (input) => {
        const parsed = parseAddress(input);
        if (!parsed.ok) return;
        const again = parseAddress(parsed.address.normalized);
        assert.ok(again.ok, `${parsed.address.normalized} should stay valid`);
        assert.equal(again.address.normalized, parsed.address.normalized);
      }),
      { numRuns: 2000 },
    );
  });

  test('generated RFC 5322 addresses are accepted unless they break an SMTP limit', () => {
    fc.assert(
      fc.property(fc.emailAddress(), (address) => {
        const parsed = parseAddress(address);
        if (parsed.ok) return;
        // fast-check's addresses follow RFC 5322; SMTP adds length limits and LDH labels.
        assert.ok(
          ['local_part_too_long', 'domain_too_long', 'too_long', 'label_too_long', 'invalid_domain', 'numeric_tld'].includes(parsed.error),
          `${address}: ${parsed.error}`,
        );
      }),
      { numRuns: 2000 },
    );
  });

  test('replies come out the same however the bytes are chunked', () => {
    const reply = fc.record({
      code: fc.integer({ min: 200, max: 599 }),
      lines: fc.array(fc.string({ maxLength: 40 }).map((s) => s.replace(/[\r\n]/g, ' ')), { minLength: 1, maxLength: 5 }),
    });
    fc.assert(
      fc.property(fc.array(reply, { minLength: 1, maxLength: 6 }), fc.array(fc.integer({ min: 1, max: 17 }), { minLength: 1, maxLength: 10 }), (replies, cuts) => {
        const wire = Buffer.from(
          replies.map((r) => r.lines.map((line, i) => `${r.code}${i === r.lines.length - 1 ? ' ' : '-'}${line}\r\n`).join('')).join(''),
        );
        const parser = new ReplyParser();
        const out: SmtpReply[] = [];
        let at = 0;
        for (let i = 0; at < wire.length; i++) {
          const size = cuts[i % cuts.length] ?? 1;
          const result = parser.push(wire.subarray(at, at + size));
          assert.equal(result.problem, null);
          out.push(...result.replies);
          at += size;
        }
        assert.deepEqual(
          out.map((r) => [r.code, r.lines]),
          replies.map((r) => [r.code, r.lines]),
        );
      }),
      { numRuns: 500 },
    );
  });
});
