/**
 * Replies that speak about the *client*, not the mailbox, seen from the session's side: what
 * the host queue does with them. It does not read the reply itself — the reply table
 * (replies/table.ts, read through replies/classify-by-table.ts) is the one place that decides what a reply
 * means, and its `throttled` class is exactly "the server limits the prober: nothing is known
 * about the mailbox, ask again later, more gently" (a 421, rate/connection/recipient/error
 * limits of the client in any wording and under any code, X.5.3, a 4.7.x deferral); every such
 * row is `about: 'client'`. A reply about one recipient — Gmail's 450 4.2.1 / 550 5.2.1 "the
 * user … is receiving mail at a rate…" — is that recipient's answer and slows nothing here. Such a reply never becomes a verdict on its own; the host queue
 * puts the address back and asks again later. Only a host that keeps answering so ends the
 * address as a failure (TRANSIENT).
 *
 * - `too_many_recipients`: the transaction is full (RFC 5321 §4.5.3.1.10 "452 too many
 *   recipients", enhanced X.5.3, RFC 3463 §3.6): the rest go into a later transaction of the
 *   same session, and the host's recipient limit is learnt.
 * - `throttled`: any other reply of the table's `throttled` class: a back-off and a new session.
 */
import { classifyRcptReply } from './classify-by-table.js';
import type { SmtpReply } from './parse.js';

export type HostSignal = 'too_many_recipients' | 'throttled';

const FULL_TRANSACTION = /too many recipients/i;

/** What a reply says about the host's stance towards this client; null when it is about the mailbox. */
export function hostSignalOf(reply: SmtpReply): HostSignal | null {
  if (classifyRcptReply(reply).class !== 'throttled') return null;
  const full = reply.enhanced === '4.5.3' || reply.enhanced === '5.5.3' || (reply.code === 452 && FULL_TRANSACTION.test(reply.text));
  return full ? 'too_many_recipients' : 'throttled';
}
