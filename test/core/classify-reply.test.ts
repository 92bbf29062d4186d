import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { classifyRcptReply, type RcptClass } from '../../src/core/classify-reply.js';
import { parseReplyText } from '../../src/core/smtp/reply.js';

/** Replies as real servers send them (multi-line where they are), and what each means. */
const REPLIES: Array<[server: string, reply: string, expected: RcptClass]> = [
  ['Gmail, mailbox exists', '250 2.1.5 OK a1-20020a170902b70100b001e0b5d8f1ebsi123 - gsmtp', 'accepted'],
  [
    'Gmail, no such user',
    "550-5.1.1 The email account that you tried to reach does not exist. Please try\r\n550-5.1.1 double-checking the recipient's email address for typos or\r\n550-5.1.1 unnecessary spaces. For more information, go to\r\n550 5.1.1  https://support.google.com/mail/?p=NoSuchUser a1si123 - gsmtp",
    'no_mailbox',
  ],
  [
    'Gmail, rate limited (greylist-like)',
    '450-4.2.1 The user you are trying to contact is receiving mail at a rate that\r\n450-4.2.1 prevents additional messages from being delivered. Please resend your\r\n450 4.2.1 message at a later point. - gsmtp',
    'greylisted',
  ],
  ['Gmail, mailbox disabled', '550-5.2.1 The email account that you tried to reach is disabled.\r\n550 5.2.1 https://support.google.com/mail/?p=DisabledUser - gsmtp', 'disabled'],
  ['Gmail, over quota', '452-4.2.2 The email account that you tried to reach is over quota. Please direct\r\n452 4.2.2 the recipient to https://support.google.com/mail/?p=OverQuotaTemp - gsmtp', 'full'],
  ['Gmail, policy block', '550-5.7.1 [203.0.113.7] Our system has detected that this message is likely\r\n550 5.7.1 unsolicited mail. To reduce the amount of spam sent to Gmail - gsmtp', 'blocked'],
  ['Microsoft 365, directory-based edge blocking', '550 5.4.1 Recipient address rejected: Access denied. AS(201806281) [DM6NAM11FT012.eop-nam11.prod.protection.outlook.com]', 'no_mailbox'],
  ['Outlook.com, unknown mailbox', '550 5.5.0 Requested action not taken: mailbox unavailable (S2017062302). [VI1EUR06FT012.eop-eur06.prod.protection.outlook.com]', 'no_mailbox'],
  ['Outlook.com, IP on block list', '550 5.7.1 Unfortunately, messages from [203.0.113.7] weren\'t sent. Please contact your Internet service provider since part of their network is on our block list (S3150).', 'blocked'],
  ['Yahoo, no such account', "554 delivery error: dd This user doesn't have a yahoo.com account (nobody@yahoo.com) [0] - mta1234.mail.gq1.yahoo.com", 'no_mailbox'],
  ['Yahoo, disabled mailbox', '554 delivery error: dd Sorry, your message to someone@yahoo.com cannot be delivered. This mailbox is disabled (554.30). - mta1001.mail.bf1.yahoo.com', 'disabled'],
  ['Yahoo, temporarily deferred', '421 4.7.0 [TSS04] Messages from 203.0.113.7 temporarily deferred due to unexpected volume or user complaints', 'greylisted'],
  ['Postfix, local recipient table', '550 5.1.1 <nobody@example.com>: Recipient address rejected: User unknown in local recipient table', 'no_mailbox'],
  ['Postfix, virtual mailbox table', '550 5.1.1 <nobody@example.com>: Recipient address rejected: User unknown in virtual mailbox table', 'no_mailbox'],
  ['Postfix + postgrey', '450 4.2.0 <a@example.com>: Recipient address rejected: Greylisted, see http://postgrey.schweikert.ch/help/example.com.html', 'greylisted'],
  ['Postfix, relay denied', '554 5.7.1 <a@example.org>: Relay access denied', 'blocked'],
  ['Postfix, Spamhaus RBL', '554 5.7.1 Service unavailable; Client host [203.0.113.7] blocked using zen.spamhaus.org; https://www.spamhaus.org/query/ip/203.0.113.7', 'blocked'],
  ['Postfix, quota', '552 5.2.2 <a@example.com>: Recipient address rejected: Mailbox full', 'full'],
  ['Postfix, temporary lookup failure', '451 4.3.0 <a@example.com>: Temporary lookup failure', 'temporary'],
  ['Exim, unrouteable', '550 Unrouteable address', 'no_mailbox'],
  ['Exim, no such user', '550 No Such User Here', 'no_mailbox'],
  ['Exim, greylisting', '451 Greylisted, please try again in 5 minutes', 'greylisted'],
  ['Exim, listed at a DNSBL', '550 Rejected because 203.0.113.7 is in a black list at b.barracudacentral.org', 'blocked'],
  ['Proofpoint, unknown user', '550 5.1.1 User Unknown', 'no_mailbox'],
  ['Proofpoint, reputation block', '554 5.7.0 Blocked - see https://ipcheck.proofpoint.com/?ip=203.0.113.7', 'blocked'],
  ['Mimecast, invalid recipient', '550 Invalid Recipient - https://community.mimecast.com/docs/DOC-1369#550', 'no_mailbox'],
  ['Mimecast, policy', '550 Administrative prohibition - envelope blocked - https://community.mimecast.com/docs/DOC-1369#550', 'blocked'],
  ['Barracuda, RBL', '554 Service unavailable; Client host [203.0.113.7] blocked using Barracuda Reputation; http://www.barracudanetworks.com/reputation/?pr=1&ip=203.0.113.7', 'blocked'],
  ['Zoho, invalid account', '550 5.1.1 User does not exist - <x@zoho.com>', 'no_mailbox'],
  ['iCloud, no such user', '550 5.1.1 <x@icloud.com>: user does not exist', 'no_mailbox'],
  ['generic greylisting 4.7.1', '450 4.7.1 Try again later', 'greylisted'],
  ['mail world greylist', '450 4.7.1 <grey.listed@acme.test>: Recipient address rejected: Greylisted, try again later', 'greylisted'],
  ['generic 4.7.1 listed', '450 4.7.1 Client host rejected: 203.0.113.7 is listed in bl.spamcop.net', 'blocked'],
  ['qmail, no mailbox here', "553 sorry, that domain isn't in my list of allowed rcpthosts (#5.7.1)", 'blocked'],
  ['qmail, no mailbox', '550 sorry, no mailbox here by that name. (#5.1.1)', 'no_mailbox'],
  ['quota without enhanced code', '552 Requested mail action aborted: exceeded storage allocation (over quota)', 'full'],
  ['4xx quota', '452 4.2.2 Mailbox full', 'full'],
  ['unexplained 550', '550 Rejected', 'rejected_unclassified'],
  ['mailbox moved 5.1.6', '550 5.1.6 Recipient addresses have been moved', 'no_mailbox'],
  ['bad syntax 5.1.3', '501 5.1.3 Bad recipient address syntax', 'no_mailbox'],
  ['temporary 4xx without text', '451 4.4.1 No answer from host', 'temporary'],
];

describe('RCPT reply classification (real-world texts)', () => {
  for (const [server, text, expected] of REPLIES) {
    test(`${server}: "${text.split('\r\n')[0]?.slice(0, 70)}" is ${expected}`, () => {
      assert.equal(classifyRcptReply(parseReplyText(text)).class, expected);
    });
  }

  test('a 554 5.7.1 Spamhaus block is never read as "no such mailbox", even with a recipient text', () => {
    const reply = parseReplyText('554 5.7.1 <nobody@example.com>: Recipient address rejected: blocked using zen.spamhaus.org');
    assert.equal(classifyRcptReply(reply).class, 'blocked');
  });

  test('a clean 5.1.1 is judged by its code, a bare "user unknown" by its text', () => {
    assert.equal(classifyRcptReply(parseReplyText('550 5.1.1 user unknown')).basis, 'code');
    assert.equal(classifyRcptReply(parseReplyText('550 user unknown')).basis, 'text');
  });
});
