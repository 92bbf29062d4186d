/**
 * Replies that speak about the *client*, not the mailbox: the server is throttling this
 * connection or this sender. They never become a verdict on their own; the host queue puts
 * the address back and asks again later (in a new transaction, or a new session after a
 * back-off). Only a host that keeps answering so ends the address as its reply says (read by
 * classify-reply.ts), which is then at most TRANSIENT or GREYLISTED.
 *
 * - `too_many_recipients`: RFC 5321 §4.5.3.1.10 "452 too many recipients" (enhanced 4.5.3,
 *   RFC 3463 §3.6): the rest go into a later transaction of the same session.
 * - `throttled`: a temporary refusal whose text names a rate or a limit — Postfix
 *   `smtpd_client_recipient_rate_limit` / `smtpd_client_message_rate_limit` ("450 4.7.1
 *   Error: too many recipients from …", "… too much mail from …"), `smtpd_client_connection_*`
 *   ("421 4.7.0 … too many connections from …"), providers' "451 4.7.1 … try again later".
 *   Greylisting texts are left to classify-reply (greylisting is about the recipient pair,
 *   worth a recheck minutes later, not an immediate retry); so are mailbox-status codes
 *   (X.2.x: Gmail's "450 4.2.1 … receiving mail at a rate" is about that one mailbox).
 */
import type { SmtpReply } from './reply.js';

export type HostSignal = 'too_many_recipients' | 'throttled';

const GREYLIST = /gr[ae]y-?list|postgrey|not yet authori[sz]ed/i;
const THROTTLE =
  /too many|too much|rate[- ]?limit|ratelimit|\brate\b|throttl|slow down|exceeded|try (?:again )?later|retry (?:again )?later|come back later|temporarily (?:deferred|unavailable)|resources|congestion|overload/i;

/** What a reply says about the host's stance towards this client; null when it is about the mailbox. */
export function hostSignalOf(reply: SmtpReply): HostSignal | null {
  if (reply.code < 400 || reply.code >= 500) return null;
  if (reply.enhanced === '4.5.3' || (reply.code === 452 && /too many recipients/i.test(reply.text))) return 'too_many_recipients';
  if (reply.code === 421) return 'throttled';
  const enhanced = reply.enhanced;
  // X.2.x (mailbox status) and X.1.x (address status) speak about the recipient.
  if (enhanced !== null && /^4\.[12]\./.test(enhanced)) return null;
  if (GREYLIST.test(reply.text)) return null;
  return THROTTLE.test(reply.text) ? 'throttled' : null;
}
