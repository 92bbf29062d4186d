/** Which replies say the prober's address is refused (src/core/egress/ip-block-signal.ts), from real providers' texts. */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { parseReplyText } from '../../src/core/replies/parse.js';
import { ipBlockSignal } from '../../src/core/egress/ip-block-signal.js';

const CASES: Array<[string, string | null]> = [
  ['554 5.7.1 Service unavailable; Client host [203.0.113.5] blocked using zen.spamhaus.org; https://www.spamhaus.org/query/ip/203.0.113.5', 'dnsbl'],
  ['554 Service unavailable; Client host [203.0.113.5] blocked using Barracuda Reputation, see http://www.barracudanetworks.com/reputation/', 'dnsbl'],
  ['550 5.7.606 Access denied, banned sending IP [203.0.113.5]. To request removal from this list please visit https://sender.office.com/', 'microsoft-banned-ip'],
  ["550 5.7.1 Unfortunately, messages from [203.0.113.5] weren't sent. Please contact your Internet service provider since part of their network is on our block list (S3150).", 'microsoft-banned-ip'],
  ["553 5.7.1 [BL21] Connections will not be accepted from 203.0.113.5, because the ip is in Spamhaus's list; see https://postmaster.yahooinc.com/error-codes", 'dnsbl'],
  ['421 4.7.0 [TSS04] Messages from 203.0.113.5 temporarily deferred due to unexpected volume or user complaints - 4.16.55.1', 'yahoo-ip-codes'],
  ['421 4.7.28 Gmail has detected an unusual rate of unsolicited mail originating from your IP address.', 'ip-reputation'],
  ['550 5.7.1 Your IP address 203.0.113.5 is blacklisted', 'ip-reputation'],
  // About the mailbox or the message, not the address: another route would get the same.
  ['550 5.1.1 <nobody@example.com>: Recipient address rejected: User unknown', null],
  ['550 5.7.1 <probe@example.com>: Sender address rejected: Access denied', null],
  ['550 5.7.26 Unauthenticated email from example.com is not accepted due to domain\'s DMARC policy', null],
  ['452 4.2.2 Mailbox full', null],
  ['250 2.1.5 OK', null],
];

describe('replies that refuse the prober\'s address', () => {
  for (const [text, expected] of CASES) {
    test(`${expected ?? 'not a block'}: ${text.slice(0, 70)}`, () => assert.equal(ipBlockSignal(parseReplyText(text)), expected));
  }
});
