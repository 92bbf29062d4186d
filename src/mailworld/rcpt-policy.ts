/**
 * What an MX host answers to RCPT TO, from the recipient domain's mailbox table. The texts
 * are the ones real servers send (Postfix, Exim, Spamhaus-listed rejects), because the engine
 * reads text as well as codes (RFC 3463 enhanced codes are part of the text).
 */
import type { DomainSpec, MailboxBehaviour } from './spec.js';

export interface SmtpReply {
  code: number;
  text: string;
}

const DEFAULT_GREYLIST_MS = 1000;

export function splitAddress(address: string): { local: string; domain: string } {
  const at = address.lastIndexOf('@');
  if (at < 0) return { local: address, domain: '' };
  return { local: address.slice(0, at), domain: address.slice(at + 1).toLowerCase().replace(/\.$/, '') };
}

/** The behaviour of one mailbox: its own entry, else the domain's default (RFC 5321 local parts
 * are case-sensitive in theory; every real server folds them, and so does the world). */
export function mailboxBehaviour(domain: DomainSpec, local: string): MailboxBehaviour {
  return domain.mailboxes?.[local.toLowerCase()] ?? domain.otherMailboxes ?? 'unknown';
}

export class RcptPolicy {
  private readonly domains = new Map<string, DomainSpec>();
  /** sender|recipient → time of the first greylisted attempt. */
  private readonly greylist = new Map<string, number>();

  constructor(domains: readonly DomainSpec[]) {
    for (const domain of domains) this.domains.set(domain.name.toLowerCase(), domain);
  }

  domain(name: string): DomainSpec | undefined {
    return this.domains.get(name.toLowerCase().replace(/\.$/, ''));
  }

  /**
   * The reply to `RCPT TO:<recipient>` after `MAIL FROM:<sender>`, seen from `clientIp`.
   * `acceptAll` is a webmail host that accepts every recipient (Yahoo-like). Null: the host
   * never answers (`no_reply`), and nothing after it in the session is answered either.
   */
  rcpt(recipient: string, sender: string, clientIp: string, acceptAll = false): SmtpReply | null {
    const { local, domain: domainName } = splitAddress(recipient);
    const domain = this.domain(domainName);
    if (!domain) return { code: 554, text: `5.7.1 <${recipient}>: Relay access denied` };
    if (acceptAll) return { code: 250, text: '2.1.5 Ok' };
    switch (mailboxBehaviour(domain, local)) {
      case 'accept':
        return { code: 250, text: '2.1.5 Ok' };
      case 'unknown':
        return { code: 550, text: `5.1.1 <${recipient}>: Recipient address rejected: User unknown in virtual mailbox table` };
      case 'disabled':
        return { code: 550, text: '5.2.1 mailbox disabled' };
      case 'full':
        return { code: 452, text: '4.2.2 Mailbox full' };
      case 'full_permanent':
        return { code: 552, text: '5.2.2 mailbox over quota' };
      case 'greylist':
        return this.greylisted(recipient, sender, domain);
      case 'policy_block':
        return { code: 554, text: `5.7.1 Service unavailable; Client host [${clientIp}] blocked using zen.spamhaus.org` };
      case 'temp_fail':
        return { code: 451, text: '4.3.0 temporary failure' };
      case 'no_reply':
        return null;
    }
  }

  /** Greylisting as postgrey does it: the first try of a sender/recipient pair starts the clock,
   * tries before greylistMs has passed are deferred, later ones accepted. */
  private greylisted(recipient: string, sender: string, domain: DomainSpec): SmtpReply {
    const key = `${sender.toLowerCase()}|${recipient.toLowerCase()}`;
    const now = Date.now();
    const first = this.greylist.get(key);
    if (first === undefined) {
      this.greylist.set(key, now);
      return { code: 450, text: '4.7.1 Greylisted, try again later' };
    }
    if (now - first >= (domain.greylistMs ?? DEFAULT_GREYLIST_MS)) return { code: 250, text: '2.1.5 Ok' };
    return { code: 450, text: '4.7.1 Greylisted, try again later' };
  }

  /** Forgets greylisting history (the recorder's reset() goes with it in tests). */
  resetGreylist(): void {
    this.greylist.clear();
  }
}
