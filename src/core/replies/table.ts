/**
 * The reply table: what one RCPT reply says about the mailbox, decided by meaning, not by the
 * code alone. One row per decision, first match wins; each row names its source (URL or RFC
 * section). docs/reply-table.md is generated from this table and the documented replies that
 * test it (test/core/documented-replies.ts), so the two cannot drift.
 *
 * The order is the reasoning:
 *  1. provider-specific replies whose code misleads (Microsoft's DBEB 5.4.1, Orange, Apple);
 *  2. a mailbox receiving too fast (Gmail's 450 4.2.1 / 550 5.2.1 "receiving mail at a rate"):
 *     about that recipient only; then anything that limits the prober (421, throttling
 *     wording, X.5.3) — says nothing about the mailbox, whatever the code;
 *  3. greylisting by name, then policy blocks (RFC 3463 §3.8) — never "no such mailbox";
 *  4. a full mailbox by code (X.2.2) or by wording in any language, before any X.1.x code
 *     (Orange answers a full mailbox with 552 5.1.1);
 *  5. the remaining 4xx; then disabled / unknown mailboxes, wording before code where the
 *     code is the vaguer (AT&T answers an unknown address with 5.2.1).
 */
import type { SmtpReply } from './parse.js';
import {
  BLOCK_TEXT,
  RECIPIENT_RATE_TEXT,
  DISABLED_TEXT,
  GREYLIST_TEXT,
  NO_MAILBOX_TEXT,
  QUOTA_TEXT,
  SERVER_TROUBLE_TEXT,
  SYSTEM_STORAGE_TEXT,
  THROTTLE_TEXT,
} from './wording.js';

/**
 * What a reply means for the mailbox.
 * - `throttled`: the server limits the prober (rate, connections, recipients, errors). Nothing
 *   is known about the mailbox: ask again later in a fresh session, more gently. The session
 *   code re-queues these; only when a host keeps refusing does the address end TRANSIENT.
 * - `greylisted`: greylisting by name; the same client retrying after the delay gets through.
 * - `blocked`: a policy refusal of the prober (block list, reputation, relay, authentication).
 * - `temporary`: any other 4xx.
 * - `rejected_unclassified`: a 5xx that says nothing decisive.
 */
export type RcptClass =
  | 'accepted'
  | 'no_mailbox'
  | 'disabled'
  | 'full'
  | 'greylisted'
  | 'throttled'
  | 'blocked'
  | 'temporary'
  | 'rejected_unclassified';

export type CodeRange = '2xx' | '4xx' | '5xx' | 'failure' | '421';

/**
 * Whom a reply is about (Postfix's own client keeps the same line: a 4xx about one recipient
 * defers that recipient, a 4xx at connect or a 421 defers the destination; qmgr(8), "Delivery
 * concurrency"):
 * - `recipient`: that address's answer — its verdict, or a retry window for it alone (a full
 *   mailbox, a mailbox receiving too fast, greylisting of that triple, a 4xx about it). Nothing
 *   else slows: the host's other recipients are asked as before.
 * - `client`: about the prober — its IP, its rate, its connections or errors, a busy server,
 *   a 421, a policy block. Throttling rows make the whole host back off (replies/host-signal.ts).
 */
export type ReplyAbout = 'recipient' | 'client';

export interface ReplyRule {
  /** Stable id, shown in docs and in judgements. */
  id: string;
  class: RcptClass;
  about: ReplyAbout;
  /** Whether the code (reply code or enhanced status code) or the wording decides. */
  basis: 'code' | 'text';
  codes: CodeRange;
  /** The enhanced status code must match (RFC 3463 `class.subject.detail`). */
  enhanced?: RegExp;
  /** The reply text must match. */
  text?: RegExp;
  /** The rule does not apply when the text matches this. */
  unless?: RegExp;
  /** The decision in one sentence (docs/reply-table.md). */
  why: string;
  /** URL or RFC section the decision rests on. */
  source: string;
}

export const RFC5321 = 'https://www.rfc-editor.org/rfc/rfc5321';
export const RFC3463 = 'https://www.rfc-editor.org/rfc/rfc3463';

export const REPLY_TABLE: readonly ReplyRule[] = [
  {
    id: 'accepted',
    class: 'accepted',
    about: 'recipient',
    basis: 'code',
    codes: '2xx',
    why: 'A 2yz reply to RCPT accepts the recipient.',
    source: `${RFC5321}#section-4.2.1 (2yz Positive Completion)`,
  },
  {
    id: 'microsoft-dbeb',
    class: 'no_mailbox',
    about: 'recipient',
    basis: 'text',
    codes: '5xx',
    enhanced: /^5\.4\.1$/,
    text: /recipient address rejected: access denied/i,
    why: "Microsoft 365's Directory-Based Edge Blocking: the recipient is not in the tenant's directory, despite the words \"access denied\".",
    source: 'https://support.microsoft.com/it-it/topic/codice-di-errore-550-5-4-1-del-rapporto-di-mancato-recapito-indirizzo-del-destinatario-rifiutato-accesso-negato-c0e98a8e-81db-49c2-9bf1-32a1734d3e77',
  },
  {
    id: 'yahoo-dd-no-account',
    class: 'no_mailbox',
    about: 'recipient',
    basis: 'text',
    codes: '5xx',
    text: /\bdd\b.*doesn't have an? \S+ account/i,
    why: 'Yahoo: "dd This user doesn\'t have a yahoo.com account" — the account does not exist.',
    source: 'https://senders.yahooinc.com/smtp-error-codes/',
  },
  {
    id: 'orange-archived-or-locked',
    class: 'disabled',
    about: 'recipient',
    basis: 'text',
    codes: '5xx',
    text: /\b(?:OFR|LPN)\d*_(?:420|426)\b/,
    why: 'Orange / La Poste codes 420 (recipient archived) and 426 (recipient account locked): the mailbox exists and takes no mail; "bloque" here is not a block of the prober.',
    source: 'https://postmaster.orange.fr/ ; https://www.postmastery.com/orange-postmaster-smtp-error-codes-ofr/',
  },
  {
    id: 'opensmtpd-virtual-unknown',
    class: 'no_mailbox',
    about: 'recipient',
    basis: 'text',
    codes: '5xx',
    enhanced: /^5\.2\.4$/,
    text: /mailing list expansion problem/i,
    why: 'OpenSMTPD answers a recipient its virtual table does not know with "524 5.2.4 Mailing list expansion problem" (the expansion of the address found nothing): no such mailbox.',
    source: 'https://github.com/OpenSMTPD/OpenSMTPD/blob/master/usr.sbin/smtpd/smtp_session.c ; test/realmta/opensmtpd-bed.ts (OpenSMTPD 6.8, measured)',
  },
  {
    id: 'apple-lookup-glitch',
    class: 'temporary',
    about: 'recipient',
    basis: 'text',
    codes: 'failure',
    text: /user lookup success but no user record found/i,
    why: "iCloud answered existing users with this 5.1.1 during its April 2021 incident; it is Apple's directory failing, not proof that the mailbox is missing.",
    source: 'https://status.socketlabs.com/incident/306',
  },
  {
    id: 'mimecast-greylisting',
    class: 'greylisted',
    about: 'recipient',
    basis: 'text',
    codes: '4xx',
    text: /internal resource temporarily unavailable/i,
    why: 'Mimecast documents "451 Internal resource temporarily unavailable" as greylisting (retry from the same server).',
    source: 'https://mimecastsupport.zendesk.com/hc/en-us/articles/34000709564691-Policies-Mimecast-SMTP-Error-Codes',
  },
  {
    id: 'session-closing',
    class: 'throttled',
    about: 'client',
    basis: 'code',
    codes: '421',
    unless: BLOCK_TEXT,
    why: 'A 421 closes the session ("service not available, closing transmission channel"); the recipient was not judged. Ask again in a new session.',
    source: `${RFC5321}#section-3.8 ; ${RFC5321}#section-4.2.3`,
  },
  {
    id: 'recipient-receiving-too-fast',
    class: 'temporary',
    about: 'recipient',
    basis: 'text',
    codes: 'failure',
    text: RECIPIENT_RATE_TEXT,
    why: 'One mailbox receives mail faster than its provider allows (Gmail 450 4.2.1 and 550 5.2.1 "The user you are trying to contact is receiving mail at a rate…", Yahoo "User is receiving mail too quickly", Microsoft 432 4.3.2 "recipient thread limit exceeded"): that recipient is asked again later (TRANSIENT with a retry window); the host is not slowed.',
    source: 'https://support.google.com/a/answer/3726730 ; https://learn.microsoft.com/en-us/exchange/troubleshoot/email-delivery/ndr/non-delivery-reports-in-exchange-online (432 4.3.2)',
  },
  {
    id: 'throttling-wording',
    class: 'throttled',
    about: 'client',
    basis: 'text',
    codes: 'failure',
    text: THROTTLE_TEXT,
    why: 'Rate, volume, connection, recipient or error limits of the prober (Postfix "too many recipients/errors", Exim "Too many nonmail commands", Microsoft "Server busy"): nothing about the mailbox; the host backs off.',
    source: 'https://support.google.com/a/answer/3726730 ; https://www.postfix.org/postconf.5.html#smtpd_client_recipient_rate_limit',
  },
  {
    id: 'too-many-recipients-code',
    class: 'throttled',
    about: 'client',
    basis: 'code',
    codes: 'failure',
    enhanced: /^[45]\.5\.3$/,
    why: 'X.5.3 "Too many recipients": the transaction is full; send this recipient in another one.',
    source: `${RFC3463}#section-3.6 (X.5.3) ; ${RFC5321}#section-4.5.3.1.10`,
  },
  {
    id: 'sender-rejected',
    class: 'blocked',
    about: 'client',
    basis: 'text',
    codes: 'failure',
    text: /sender address rejected|invalid sender|[eé]metteur invalide/i,
    why: "A refusal of the probe's envelope sender (Postfix checks it at RCPT, prefixed \"Sender address rejected:\"; Orange \"Emetteur invalide. Invalid Sender\" under 5.1.0): about the prober, not the mailbox.",
    source: 'https://www.postfix.org/postconf.5.html#smtpd_sender_restrictions ; https://www.postmastery.com/orange-postmaster-smtp-error-codes-ofr/',
  },
  {
    id: 'sender-address-code',
    class: 'blocked',
    about: 'client',
    basis: 'code',
    codes: 'failure',
    enhanced: /^[45]\.1\.[78]$/,
    why: "X.1.7 / X.1.8 are about the sender's address (syntax, domain): about the prober, not the mailbox.",
    source: `${RFC3463}#section-3.2 (X.1.7, X.1.8)`,
  },
  {
    id: 'greylisting-by-name',
    class: 'greylisted',
    about: 'recipient',
    basis: 'text',
    codes: '4xx',
    text: GREYLIST_TEXT,
    why: 'Greylisting named as such (postgrey, milter-greylist, "try again in N minutes"): the same client retrying after the delay is accepted.',
    source: 'https://postgrey.schweikert.ch/ ; https://www.postfix.org/SMTPD_POLICY_README.html#greylist',
  },
  {
    id: 'policy-wording',
    class: 'blocked',
    about: 'client',
    basis: 'text',
    codes: 'failure',
    text: BLOCK_TEXT,
    why: 'Block lists (Spamhaus, Barracuda, Proofpoint…), reputation, relay, content or authentication policy: the server refuses the prober, which proves nothing about the mailbox.',
    source: `${RFC3463}#section-3.8 ; https://www.spamhaus.org/`,
  },
  {
    id: 'system-storage',
    class: 'temporary',
    about: 'recipient',
    basis: 'code',
    codes: 'failure',
    enhanced: /^[45]\.3\.1$/,
    why: "X.3.1 \"Mail system full\" is the server's own storage, not the mailbox's quota.",
    source: `${RFC3463}#section-3.4 (X.3.1) ; ${RFC5321}#section-4.2.2 (452)`,
  },
  {
    id: 'system-storage-wording',
    class: 'temporary',
    about: 'recipient',
    basis: 'text',
    codes: 'failure',
    text: SYSTEM_STORAGE_TEXT,
    why: '"Insufficient system storage" is the server\'s own storage, not the mailbox\'s quota.',
    source: `${RFC5321}#section-4.2.2 (452)`,
  },
  {
    id: 'mailbox-full-code',
    class: 'full',
    about: 'recipient',
    basis: 'code',
    codes: 'failure',
    enhanced: /^[45]\.2\.2$/,
    why: 'X.2.2 "Mailbox full": the mailbox exists and is over quota.',
    source: `${RFC3463}#section-3.3 (X.2.2)`,
  },
  {
    id: 'mailbox-full-wording',
    class: 'full',
    about: 'recipient',
    basis: 'text',
    codes: 'failure',
    text: QUOTA_TEXT,
    why: 'Over-quota wording in any language, whatever the code (Orange: 552 5.1.1 "Boite du destinataire pleine"; a 554 5.7.1 "Quota exceeded").',
    source: 'https://postmaster.orange.fr/ ; https://support.google.com/a/answer/3726730',
  },
  {
    id: 'policy-code',
    class: 'blocked',
    about: 'client',
    basis: 'code',
    codes: '5xx',
    enhanced: /^5\.7\.\d+$/,
    why: 'X.7.x "Security or policy status": a refusal of the prober, never proof that the mailbox is missing.',
    source: `${RFC3463}#section-3.8`,
  },
  {
    id: 'server-trouble',
    class: 'temporary',
    about: 'recipient',
    basis: 'text',
    codes: '4xx',
    text: SERVER_TROUBLE_TEXT,
    why: 'The receiving server reports its own trouble (lookup or configuration failure).',
    source: `${RFC5321}#section-4.2.1 (4yz) ; https://www.postfix.org/postconf.5.html#smtpd_recipient_restrictions`,
  },
  {
    id: 'policy-deferral',
    class: 'throttled',
    about: 'client',
    basis: 'code',
    codes: '4xx',
    enhanced: /^4\.7\.\d+$/,
    why: 'A 4.7.x deferral ("try again later") without a listing: the server holds the prober off for now; nothing about the mailbox.',
    source: `${RFC3463}#section-3.8 ; https://learn.microsoft.com/en-us/exchange/troubleshoot/email-delivery/ndr/non-delivery-reports-in-exchange-online`,
  },
  {
    id: 'temporary',
    class: 'temporary',
    about: 'recipient',
    basis: 'code',
    codes: '4xx',
    why: 'Any other 4yz: a transient failure, worth another try later.',
    source: `${RFC5321}#section-4.2.1 (4yz Transient Negative Completion)`,
  },
  {
    id: 'disabled-wording',
    class: 'disabled',
    about: 'recipient',
    basis: 'text',
    codes: '5xx',
    text: DISABLED_TEXT,
    why: 'A disabled, suspended or inactive mailbox (Gmail 5.2.1 "is disabled", Yahoo "This mailbox is disabled (554.30)"), whatever the code.',
    source: 'https://support.google.com/a/answer/3726730 ; https://senders.yahooinc.com/smtp-error-codes/',
  },
  {
    id: 'no-mailbox-code',
    class: 'no_mailbox',
    about: 'recipient',
    basis: 'code',
    codes: '5xx',
    enhanced: /^5\.1\.(?:0|1|3|6|10)$/,
    why: 'X.1.1 bad destination mailbox, X.1.0 other address status, X.1.3 bad address syntax, X.1.6 mailbox moved, X.1.10 (Microsoft RecipientNotFound).',
    source: `${RFC3463}#section-3.2 ; https://learn.microsoft.com/en-us/exchange/troubleshoot/email-delivery/ndr/non-delivery-reports-in-exchange-online`,
  },
  {
    id: 'no-mailbox-wording',
    class: 'no_mailbox',
    about: 'recipient',
    basis: 'text',
    codes: '5xx',
    text: NO_MAILBOX_TEXT,
    why: 'The usual "user unknown" wordings of servers that send no code, or a vaguer one (AT&T: 550 5.2.1 "Addressee unknown").',
    source: `${RFC5321}#section-4.2.2 (550) ; https://smtp.codes/550`,
  },
  {
    id: 'mailbox-disabled-code',
    class: 'disabled',
    about: 'recipient',
    basis: 'code',
    codes: '5xx',
    enhanced: /^5\.2\.1$/,
    why: 'X.2.1 "Mailbox disabled, not accepting messages".',
    source: `${RFC3463}#section-3.3 (X.2.1)`,
  },
  {
    id: 'unclassified',
    class: 'rejected_unclassified',
    about: 'recipient',
    basis: 'code',
    codes: '5xx',
    why: 'A 5yz that says nothing decisive: no verdict is drawn from it.',
    source: `${RFC5321}#section-4.2.1 (5yz Permanent Negative Completion)`,
  },
];

export function inRange(code: number, range: CodeRange): boolean {
  switch (range) {
    case '2xx':
      return code >= 200 && code < 300;
    case '4xx':
      return code >= 400 && code < 500;
    case '5xx':
      return code >= 500 && code < 600;
    case 'failure':
      return code >= 400 && code < 600;
    case '421':
      return code === 421;
  }
}

export function ruleMatches(rule: ReplyRule, reply: SmtpReply): boolean {
  if (!inRange(reply.code, rule.codes)) return false;
  if (rule.enhanced && (reply.enhanced === null || !rule.enhanced.test(reply.enhanced))) return false;
  if (rule.text && !rule.text.test(reply.text)) return false;
  return !(rule.unless && rule.unless.test(reply.text));
}
