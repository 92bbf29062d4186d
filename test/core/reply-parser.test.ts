import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { ReplyParser, parseReplyText } from '../../src/core/replies/parse.js';

const LIMITS = { maxLineBytes: 512, maxLines: 10, maxReplyBytes: 2048 };

describe('SMTP reply parsing (RFC 5321 §4.2, RFC 3463)', () => {
  test('a multi-line reply becomes one reply with its enhanced code', () => {
    const reply = parseReplyText('550-5.1.1 The email account that you tried to reach does not exist.\r\n550 5.1.1 https://support.google.com/mail/?p=NoSuchUser');
    assert.equal(reply.code, 550);
    assert.equal(reply.enhanced, '5.1.1');
    assert.equal(reply.lines.length, 2);
  });

  test('replies split across chunks at any byte are reassembled, UTF-8 included', () => {
    const parser = new ReplyParser(LIMITS);
    const bytes = Buffer.from('250-mx.example ü\r\n250-PIPELINING\r\n250 SMTPUTF8\r\n220 next\r\n');
    const replies = [];
    for (const byte of bytes) replies.push(...parser.push(Buffer.from([byte])).replies);
    assert.deepEqual(replies.map((r) => r.code), [250, 220]);
    assert.equal(replies[0]?.lines[0], 'mx.example ü');
  });

  test('pipelined replies in one chunk come out in order', () => {
    const parser = new ReplyParser(LIMITS);
    const { replies } = parser.push(Buffer.from('250 2.1.0 ok\r\n250 2.1.5 ok\r\n550 5.1.1 unknown\r\n'));
    assert.deepEqual(replies.map((r) => r.enhanced), ['2.1.0', '2.1.5', '5.1.1']);
  });

  test('a bare LF ends a line too', () => {
    assert.equal(new ReplyParser(LIMITS).push(Buffer.from('220 hi\n')).replies.length, 1);
  });

  test('an endless multi-line reply is cut at the line cap', () => {
    const parser = new ReplyParser(LIMITS);
    assert.equal(parser.push(Buffer.from('250-x\r\n'.repeat(11))).problem, 'too_many_lines');
  });

  test('a line without an end is cut at the line-length cap, whatever the chunking', () => {
    const parser = new ReplyParser(LIMITS);
    assert.equal(parser.push(Buffer.from(`250 ${'x'.repeat(300)}`)).problem, null);
    assert.equal(parser.push(Buffer.from('x'.repeat(300))).problem, 'line_too_long');
  });

  test('a reply over the byte cap is refused', () => {
    const parser = new ReplyParser({ maxLineBytes: 512, maxLines: 100, maxReplyBytes: 1000 });
    assert.equal(parser.push(Buffer.from(`250-${'x'.repeat(400)}\r\n`.repeat(3))).problem, 'reply_too_large');
  });

  test('invalid codes and mixed codes are protocol errors', () => {
    assert.equal(new ReplyParser(LIMITS).push(Buffer.from('hello\r\n')).problem, 'invalid_code');
    assert.equal(new ReplyParser(LIMITS).push(Buffer.from('999 what\r\n')).problem, 'invalid_code');
    assert.equal(new ReplyParser(LIMITS).push(Buffer.from('250-a\r\n550 b\r\n')).problem, 'mixed_codes');
  });

  test('qmail-style trailing enhanced codes are read', () => {
    assert.equal(parseReplyText('550 sorry, no mailbox here by that name. (#5.1.1)').enhanced, '5.1.1');
  });
});
