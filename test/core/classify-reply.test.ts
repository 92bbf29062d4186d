import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { classifyRcptReply, saysNothingAboutMailbox } from '../../src/core/replies/classify-by-table.js';
import { REPLY_TABLE } from '../../src/core/replies/table.js';
import { parseReplyText } from '../../src/core/replies/parse.js';
import { DOCUMENTED_REPLIES, NO_MAILBOX_WORDINGS, QUOTA_WORDINGS } from './documented-replies.js';
import { REPLY_DOC_PATH, renderReplyTable } from './reply-table-doc.js';

const firstLine = (reply: string): string => (reply.split('\r\n')[0] ?? '').slice(0, 80);

describe('documented RCPT replies are read by what they mean', () => {
  for (const { who, reply, expected, source } of DOCUMENTED_REPLIES) {
    test(`${who}: "${firstLine(reply)}" is ${expected} (${source})`, () => {
      assert.equal(classifyRcptReply(parseReplyText(reply)).class, expected);
    });
  }
});

describe('over-quota wording is read in every language providers answer in', () => {
  for (const { language, wording } of QUOTA_WORDINGS) {
    test(`${language} "${wording}" after a bare 552 is a full mailbox, and after a bare 452 too`, () => {
      assert.equal(classifyRcptReply(parseReplyText(`552 ${wording}`)).class, 'full');
      assert.equal(classifyRcptReply(parseReplyText(`452 ${wording}`)).class, 'full');
    });
  }
});

describe('"no such mailbox" wording is read in the languages providers answer in', () => {
  for (const { language, wording } of NO_MAILBOX_WORDINGS) {
    test(`${language} "${wording}" after a bare 550 is no mailbox`, () => {
      assert.equal(classifyRcptReply(parseReplyText(`550 ${wording}`)).class, 'no_mailbox');
    });
  }
});

describe('whom a reply is about: the recipient or the client', () => {
  test('every row says whom it is about; throttling and policy rows are about the client, verdict rows about the recipient', () => {
    for (const rule of REPLY_TABLE) {
      const expected = rule.class === 'throttled' || rule.class === 'blocked' ? 'client' : 'recipient';
      assert.equal(rule.about, expected, rule.id);
    }
  });

  test("a mailbox receiving too fast is that recipient's answer (TRANSIENT later), never a throttle of the host, under 450 4.2.1 or 550 5.2.1", () => {
    for (const text of [
      '450 4.2.1 The user you are trying to contact is receiving mail at a rate that prevents additional messages from being delivered.',
      '550 5.2.1 The user you are trying to contact is receiving mail at a rate that prevents additional messages from being delivered.',
      '432 4.3.2 STOREDRV.Deliver; recipient thread limit exceeded',
    ]) {
      const judged = classifyRcptReply(parseReplyText(text));
      assert.deepEqual([judged.class, judged.about, judged.rule], ['temporary', 'recipient', 'recipient-receiving-too-fast'], text);
    }
  });

  test('the replies the issue saw end TRANSIENT are read as what they say about the mailbox', () => {
    assert.equal(classifyRcptReply(parseReplyText('550 5.1.10 RESOLVER.ADR.RecipientNotFound; Recipient not found by SMTP address lookup')).class, 'no_mailbox');
    assert.equal(classifyRcptReply(parseReplyText("554 delivery error: dd This user doesn't have a yahoo.com account (x@yahoo.com) [-5]")).class, 'no_mailbox');
    assert.equal(classifyRcptReply(parseReplyText('552 5.2.2 The email account that you tried to reach is over quota')).class, 'full');
  });

  test('your IP, your rate, too many connections or errors, a busy server and a 421 are about the client', () => {
    for (const text of ['421 4.7.0 Try again later, closing connection.', '450 4.7.1 Error: too many recipients from 203.0.113.7', '451 4.7.500 Server busy. Please try again later from [203.0.113.7].', '421 4.7.0 Error: too many errors', '421 4.7.0 Error: too many connections from 203.0.113.7']) {
      assert.equal(classifyRcptReply(parseReplyText(text)).about, 'client', text);
    }
  });
});

describe('the reply table', () => {
  test('every row names its source: a URL or an RFC section', () => {
    for (const rule of REPLY_TABLE) assert.match(rule.source, /https?:\/\/|RFC \d+/, rule.id);
  });

  test('every row is reached by at least one documented reply (no row is dead)', () => {
    const reached = new Set(DOCUMENTED_REPLIES.map((d) => classifyRcptReply(parseReplyText(d.reply)).rule));
    assert.deepEqual(REPLY_TABLE.map((r) => r.id).filter((id) => !reached.has(id)), []);
  });

  test('row ids are unique', () => {
    assert.equal(new Set(REPLY_TABLE.map((r) => r.id)).size, REPLY_TABLE.length);
  });

  test('docs/reply-table.md is the table as it stands (regenerate: node --import tsx test/core/reply-table-doc.ts --write)', () => {
    assert.equal(readFileSync(REPLY_DOC_PATH, 'utf8'), renderReplyTable());
  });
});

describe('what a judgement carries', () => {
  test('a 554 5.7.1 Spamhaus block is never read as "no such mailbox", even with a recipient text', () => {
    const reply = parseReplyText('554 5.7.1 <nobody@example.com>: Recipient address rejected: User unknown; blocked using zen.spamhaus.org');
    assert.equal(classifyRcptReply(reply).class, 'blocked');
  });

  test('a clean 5.1.1 is judged by its code, a bare "user unknown" by its text', () => {
    assert.equal(classifyRcptReply(parseReplyText('550 5.1.1 user unknown')).basis, 'code');
    assert.equal(classifyRcptReply(parseReplyText('550 user unknown')).basis, 'text');
  });

  test('the judgement names the row that decided and its source', () => {
    const judged = classifyRcptReply(parseReplyText('452 4.5.3 Error: too many recipients'));
    assert.equal(judged.rule, 'throttling-wording');
    assert.match(judged.source, /support\.google\.com|postfix\.org/);
  });

  test('throttled, greylisted, blocked, temporary and unclassified replies say nothing about the mailbox; the others do', () => {
    const silent = ['421 4.7.0 too many errors', '450 4.7.1 Greylisted, try again later', '554 5.7.1 blocked', '451 4.3.0 x', '550 Rejected'];
    const telling = ['250 2.1.5 Ok', '550 5.1.1 user unknown', '550 5.2.1 disabled', '552 5.2.2 full'];
    for (const r of silent) assert.equal(saysNothingAboutMailbox(classifyRcptReply(parseReplyText(r))), true, r);
    for (const r of telling) assert.equal(saysNothingAboutMailbox(classifyRcptReply(parseReplyText(r))), false, r);
  });

  test('the same reply is judged the same way every time (no hidden state)', () => {
    const reply = parseReplyText('550 5.1.1 user unknown');
    const other = parseReplyText('421 4.7.0 too many errors');
    assert.equal(classifyRcptReply(reply).class, 'no_mailbox');
    assert.equal(classifyRcptReply(other).class, 'throttled');
    assert.equal(classifyRcptReply(reply).class, 'no_mailbox');
  });
});
