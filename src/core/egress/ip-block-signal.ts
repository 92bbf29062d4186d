/**
 * Does a reply say that the prober's address (not the mailbox, not the message) is refused? The
 * replies that should pause a route for a provider (route-health.ts): blocklist refusals and the
 * big providers' "banned / listed IP" codes. Narrower than the reply table's `blocked` class,
 * which also holds refusals that another route would get just the same (the envelope sender,
 * SPF/DMARC of the sender's domain, content policy).
 */
import type { SmtpReply } from '../replies/parse.js';

interface IpBlockRule {
  id: string;
  /** Matched against the whole reply text, enhanced code included. */
  text: RegExp;
  source: string;
}

export const IP_BLOCK_RULES: readonly IpBlockRule[] = [
  {
    id: 'dnsbl',
    // Postfix reject_rbl_client: "Client host [1.2.3.4] blocked using zen.spamhaus.org"; the lists by name.
    text: /blocked using|spamhaus|barracuda ?(?:central|reputation)|spamcop|sorbs\.net|\b(?:RBL|DNSBL)\b/i,
    source: 'https://www.postfix.org/postconf.5.html#default_rbl_reply ; https://www.spamhaus.org/faq/section/DNSBL%20Usage',
  },
  {
    id: 'microsoft-banned-ip',
    // Exchange Online 5.7.606–5.7.649 "Access denied, banned sending IP"; Outlook.com S3140/S3150 "on our block list".
    text: /\b5\.7\.6(?:0[6-9]|[1-4]\d)\b|banned sending IP|\bS31[45]0\b|on our block list/i,
    source: 'https://learn.microsoft.com/en-us/exchange/mail-flow-best-practices/non-delivery-reports-in-exchange-online/fix-error-code-5-7-606-through-5-7-649',
  },
  {
    id: 'yahoo-ip-codes',
    // Yahoo: [BL21] Spamhaus, [BL22]/[BL23] other lists; [TSS04] deferred for the IP's complaints or volume.
    text: /\[(?:BL2[1-3]|TSS0[49])\]|\bTSS04\b/,
    source: 'https://senders.yahooinc.com/smtp-error-codes/',
  },
  {
    id: 'ip-reputation',
    // Gmail 4.7.28/5.7.28 "unusual rate of unsolicited mail originating from your IP address"; generic wordings.
    text: /\b[45]\.7\.28\b|(?:IP|address)(?: address)? (?:\S+ )?(?:is |has been )?(?:blocked|blacklisted|black ?listed|banned|listed)|(?:poor|bad|low) (?:IP )?reputation|IP reputation/i,
    source: 'https://support.google.com/a/answer/3726730',
  },
];

/** The rule id when the reply refuses the prober's address; null otherwise (accepted replies never). */
export function ipBlockSignal(reply: SmtpReply): string | null {
  if (reply.code < 400) return null;
  const text = `${reply.enhanced ?? ''} ${reply.text}`;
  return IP_BLOCK_RULES.find((rule) => rule.text.test(text))?.id ?? null;
}
