/**
 * The envelope in words, for people (the "Try an address" page and the batch pages). Every
 * reason code, verdict and decision has a sentence: the maps are typed over the closed lists of
 * src/core/types.ts, so a new code cannot ship without its explanation.
 */
import type { PreSendDecision, PublicVerdict, ReasonCode } from '../core/types.js';

export const REASON_TEXT: Record<ReasonCode, string> = {
  smtp_rcpt_accepted: "The domain's mail server accepted this recipient when asked (SMTP RCPT TO), without any message being sent.",
  mailbox_not_found: 'The mail server said this mailbox does not exist.',
  catch_all_domain: 'The domain accepts mail for any address, even made-up ones, so acceptance says little about this mailbox.',
  null_mx: 'The domain publishes a "null MX" record (RFC 7505): it states that it accepts no mail at all.',
  no_mx_no_a: 'The domain has neither a mail server (MX) record nor an address record to fall back on: nothing can receive its mail.',
  nxdomain: 'The domain does not exist in DNS.',
  disposable_domain: 'The domain belongs to a disposable (throw-away) email service.',
  role_account: 'The address is a role (such as info@ or admin@) rather than a person; such mailboxes are often shared or unread.',
  free_provider: 'The address is at a free webmail provider.',
  possible_typo: 'The domain looks like a misspelling of a common one; check the suggested correction.',
  mailbox_full: 'The mailbox exists but is full; mail would bounce until space is freed.',
  mailbox_disabled: 'The mail server said this mailbox is disabled or inactive.',
  greylisted: 'The mail server asked to try again later (greylisting); a recheck is scheduled from the same sender.',
  probe_blocked: "The mail server refused the check for policy reasons (for example a blocklist); that says nothing about the mailbox.",
  smtp_timeout: 'The mail server did not answer in time.',
  smtp_protocol_error: 'The mail server answered something that does not follow the SMTP protocol.',
  dns_timeout: 'The DNS lookup of the domain did not answer in time.',
  dns_servfail: "The domain's DNS servers failed to answer (SERVFAIL).",
  connection_refused: 'The mail server refused the connection.',
  connection_dropped: 'The mail server closed the connection before answering.',
  invalid_syntax: 'The text is not a valid email address.',
  private_mx_refused: 'The domain points its mail to a private network address, which is not probed.',
  spamtrap: 'The address is on a known spam-trap list: mailing it harms your sender reputation.',
  spamtrap_pattern: 'The address looks like a spam trap; review it before mailing.',
  blacklisted_domain: 'The domain or its mail server is on a configured blocklist.',
  hard_bounced: 'Mail to this address hard-bounced before, according to your own bounce feedback.',
  webmail_accepts_all: 'This webmail provider accepts every recipient when asked, so the mailbox cannot be confirmed.',
  temporary_failure: 'The mail server reported a temporary failure; try again later.',
  sandbox: 'A sandbox key answered: the result is simulated from the address, nothing was checked on the network.',
  domain_literal: 'The address uses an IP address instead of a domain; it is not probed.',
  cname_loop: "The domain's DNS records point at each other in a loop.",
  dns_error: 'The DNS lookup failed.',
  mx_unresolvable: "The domain's mail server names could not be resolved to addresses.",
  smtputf8_not_supported: 'The address has non-ASCII characters and the mail server does not support internationalised mail (SMTPUTF8).',
  probe_not_configured: 'This server is not configured to probe mail servers (PRESEND_HELO_NAME and PRESEND_MAIL_FROM are unset).',
  tls_failure: 'The secure connection (TLS) to the mail server failed.',
  proxy_failure: 'The proxy that carries the checks failed.',
  rcpt_rejected_unclassified: 'The mail server refused the recipient with a reply that does not say why.',
  aborted: 'The check was stopped before it finished (the service was shutting down).',
  egress_paused: 'This provider refuses every address our checks can leave from, for now (a blocklist listing); nothing is known about the mailbox. It is checked again later.',
  throttled: 'The mail server asked to slow down (a rate or connection limit); it said nothing about the mailbox. Try again later.',
  policy_rule: "This account's decision policy set the recommended action for this verdict (Policy page).",
  policy_confidence_threshold: "The verdict's confidence is below this account's policy threshold, so no action is recommended (Policy page).",
  delivered_recently: 'Your own mail to this address was delivered recently (your delivery feedback), which a catch-all probe alone cannot show.',
  complained: 'The recipient marked your mail as spam before (your complaint feedback): do not mail this address.',
  host_throttled: 'The mail server kept asking us to slow down, so this address was not asked yet. It is scheduled for a recheck.',
};

export const VERDICT_TEXT: Record<PublicVerdict, string> = {
  DELIVERABLE: 'Deliverable',
  UNDELIVERABLE_NO_MAILBOX: 'Undeliverable: no such mailbox',
  UNDELIVERABLE_NO_MAIL_SERVER: 'Undeliverable: the domain receives no mail',
  UNDELIVERABLE_BOUNCED: 'Undeliverable: bounced before',
  CATCH_ALL: 'Catch-all domain',
  MAILBOX_FULL: 'Mailbox full',
  DISPOSABLE: 'Disposable address',
  ROLE: 'Role address',
  SPAMTRAP: 'Spam trap',
  RISKY_SPAMTRAP: 'Possible spam trap',
  BLACKLISTED: 'Blocklisted',
  GREYLISTED: 'Greylisted (recheck scheduled)',
  TRANSIENT: 'Temporary problem',
  UNKNOWN: 'Unknown',
  UNKNOWN_WEBMAIL: 'Unknown (webmail accepts all)',
};

export const DECISION_TEXT: Record<PreSendDecision, string> = {
  send: 'Send',
  suppress: 'Suppress: do not send',
  send_with_caution: 'Send with caution',
  enrich_first: 'Fix the address first',
  recheck_later: 'Recheck later',
  manual_review: 'Review by hand',
  do_not_decide: 'No decision: not enough evidence',
};

export function reasonText(code: string): string {
  return (REASON_TEXT as Record<string, string>)[code] ?? `Reason code ${code}.`;
}

export function verdictText(verdict: string | null): string {
  return verdict === null ? 'No verdict' : ((VERDICT_TEXT as Record<string, string>)[verdict] ?? verdict);
}

export function decisionText(decision: string | null): string {
  return decision === null ? 'No decision (not permission to send)' : ((DECISION_TEXT as Record<string, string>)[decision] ?? decision);
}
