/**
 * What a correct verifier concludes for an address of the world (docs/design.md §5), derived from
 * the spec by walking the same DNS data and host behaviours the engine will meet.
 *
 * Choices where the table leaves room (each documented so engine and tests agree):
 * - greylist: the verdict after the recheck (DELIVERABLE, or ROLE); `greylisted: 'first'`
 *   gives the first answer, GREYLISTED, instead.
 * - MX hosts are tried in preference order; a host that cannot be talked to at all (refused,
 *   tarpit, a private or IPv6 address with no server) passes to the next. When none is left:
 *   TRANSIENT; when no MX name has an address at all (and no lookup failed):
 *   UNDELIVERABLE_NO_MAIL_SERVER, as for a domain without MX and A.
 * - block_on_connect (554 5.7.1 banner): UNKNOWN, a probe block is never "no mailbox".
 * - drop_after, endless_multiline, huge_reply, invalid_reply_codes, slow_rcpt_4xx: TRANSIENT (the
 *   probe ends in a timeout, a dropped connection, a bounded protocol error or a 4xx; worth another try later).
 * - slow_banner / trickle_banner: the mailbox's verdict when the whole banner arrives within
 *   `smtpTimeoutMs` (default 10 s, PRESEND_SMTP_TIMEOUT_MS's default), else TRANSIENT.
 * - tls_fail: the mailbox's verdict; a probe sends no message and needs no TLS.
 * - a non-ASCII local part at a host without SMTPUTF8 (RFC 6531): UNKNOWN, it cannot be asked.
 * - a role local part (role-based-email-addresses) whose mailbox accepts: ROLE; on a catch-all
 *   domain CATCH_ALL wins, since the mailbox's existence is not known.
 * - list facts first: a domain on disposable-email-domains is DISPOSABLE, a spamtrap@ or
 *   honeypot@ local part RISKY_SPAMTRAP, whatever the servers would say.
 */
import { createRequire } from 'node:module';
import type { PublicVerdict } from '../core/types.js';
import { RCODE, RTYPE, type ResourceRecord } from './dns-wire.js';
import type { HostPlacement } from './ip-plan.js';
import { mailboxBehaviour, splitAddress } from './rcpt-policy.js';
import type { DomainSpec, MailboxBehaviour, MxHostSpec } from './spec.js';
import { answer, type ZoneNode } from './zone.js';

const require = createRequire(import.meta.url);
const ROLES = new Set((require('role-based-email-addresses') as string[]).map((role) => role.toLowerCase()));
/** Local parts that are traps by construction: a weak signal, RISKY_SPAMTRAP (docs/design.md §5). */
const TRAP_PATTERN = /^(spam[-_.]?trap|honey[-_.]?pot)s?\d*$/i;

let disposable: { exact: Set<string>; wildcard: Set<string> } | undefined;

/** On the maintained disposable list (exact, or under a wildcard parent): loaded on first use. */
export function isDisposableDomain(domain: string): boolean {
  disposable ??= {
    exact: new Set(require('disposable-email-domains/index.json') as string[]),
    wildcard: new Set(require('disposable-email-domains/wildcard.json') as string[]),
  };
  if (disposable.exact.has(domain)) return true;
  const labels = domain.split('.');
  return labels.some((_, i) => disposable?.wildcard.has(labels.slice(i).join('.')));
}

export interface TruthOptions {
  greylisted?: 'final' | 'first';
  smtpTimeoutMs?: number;
}

function isAscii(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 0x7f) return false;
  return true;
}

export function isRoleLocalPart(local: string): boolean {
  return ROLES.has(local.toLowerCase().split('+')[0] ?? '');
}

type Reach = { kind: 'host'; host: MxHostSpec } | { kind: 'verdict'; verdict: PublicVerdict };

function addressesOf(records: ResourceRecord[]): string[] {
  return records.flatMap((r) => (r.type === RTYPE.A || r.type === RTYPE.AAAA ? [r.address] : []));
}

export class Truth {
  private readonly domains = new Map<string, DomainSpec>();
  private readonly servedIps = new Map<string, MxHostSpec>();

  constructor(
    domains: readonly DomainSpec[],
    private readonly zone: ReadonlyMap<string, ZoneNode>,
    placements: Iterable<HostPlacement>,
    private readonly options: TruthOptions = {},
  ) {
    for (const d of domains) this.domains.set(d.name.toLowerCase(), d);
    for (const p of placements) if (p.served) this.servedIps.set(p.ip, p.host);
  }

  verdict(email: string): PublicVerdict {
    const { local, domain: domainName } = splitAddress(email);
    // List facts come before any probe, as in the engine's pipeline.
    if (isDisposableDomain(domainName)) return 'DISPOSABLE';
    if (TRAP_PATTERN.test(local.split('+')[0] ?? '')) return 'RISKY_SPAMTRAP';
    const reach = this.reach(domainName);
    if (reach.kind === 'verdict') return reach.verdict;
    // The host answers RCPT from the recipient domain's own table (rcpt-policy.ts), alias or not.
    const domain = this.domains.get(domainName);
    return this.hostVerdict(reach.host, domain, local);
  }

  /** Follows the MX set (or the implicit MX) to the first host that takes the connection. */
  private reach(domainName: string): Reach {
    const mx = answer(this.zone, domainName, RTYPE.MX);
    if (mx.kind === 'silence' || mx.rcode === RCODE.SERVFAIL) return { kind: 'verdict', verdict: 'TRANSIENT' };
    if (mx.rcode === RCODE.NXDOMAIN) return { kind: 'verdict', verdict: 'UNDELIVERABLE_NO_MAIL_SERVER' };
    const exchanges = mx.answers
      .flatMap((r) => (r.type === RTYPE.MX ? [r] : []))
      .sort((a, b) => a.preference - b.preference)
      .map((r) => r.exchange);
    if (exchanges.length === 1 && exchanges[0] === '.') return { kind: 'verdict', verdict: 'UNDELIVERABLE_NO_MAIL_SERVER' };
    // RFC 5321 §5.1: no MX records → the domain itself is the implicit MX.
    const targets = exchanges.length > 0 ? exchanges : [domainName];
    let anyAddress = false;
    let lookupFailed = false;
    for (const target of targets) {
      for (const type of [RTYPE.A, RTYPE.AAAA]) {
        const result = answer(this.zone, target, type);
        if (result.kind === 'silence' || result.rcode === RCODE.SERVFAIL) lookupFailed = true;
        if (result.kind === 'silence' || result.rcode !== RCODE.NOERROR) continue;
        for (const ip of addressesOf(result.answers)) {
          anyAddress = true;
          const host = this.servedIps.get(ip);
          if (host && !['tarpit', 'refuse'].includes(host.behaviour?.kind ?? 'normal')) return { kind: 'host', host };
        }
      }
    }
    // No MX and no A/AAAA, or MX names that all certainly have no address: nowhere to deliver.
    if (!anyAddress && !lookupFailed) return { kind: 'verdict', verdict: 'UNDELIVERABLE_NO_MAIL_SERVER' };
    return { kind: 'verdict', verdict: 'TRANSIENT' };
  }

  private hostVerdict(host: MxHostSpec, domain: DomainSpec | undefined, local: string): PublicVerdict {
    const behaviour = host.behaviour ?? { kind: 'normal' };
    const timeout = this.options.smtpTimeoutMs ?? 10_000;
    switch (behaviour.kind) {
      case 'block_on_connect':
        return 'UNKNOWN';
      case 'drop_after':
      case 'endless_multiline':
      case 'huge_reply':
      case 'invalid_reply_codes':
      case 'slow_rcpt_4xx':
        return 'TRANSIENT';
      case 'slow_banner':
        if (behaviour.delayMs >= timeout) return 'TRANSIENT';
        break;
      case 'trickle_banner': {
        const bannerBytes = `220 ${host.greeting ?? host.name} ESMTP\r\n`.length;
        if ((bannerBytes * 1000) / Math.max(1, behaviour.bytesPerSecond) >= timeout) return 'TRANSIENT';
        break;
      }
      default:
        break;
    }
    // A domain the host does not serve: 554 5.7.1 relay access denied.
    if (!domain) return 'UNKNOWN';
    // RFC 6531: a non-ASCII mailbox can only be named to a server that offers SMTPUTF8.
    if (!isAscii(local) && host.smtputf8 === false) return 'UNKNOWN';
    if (host.webmailAcceptAll) return 'UNKNOWN_WEBMAIL';
    return this.mailboxVerdict(domain, local);
  }

  private mailboxVerdict(domain: DomainSpec, local: string): PublicVerdict {
    const behaviour: MailboxBehaviour = mailboxBehaviour(domain, local);
    const catchAll = (domain.otherMailboxes ?? 'unknown') === 'accept';
    const accepted = (): PublicVerdict => (catchAll ? 'CATCH_ALL' : isRoleLocalPart(local) ? 'ROLE' : 'DELIVERABLE');
    switch (behaviour) {
      case 'accept':
        return accepted();
      case 'unknown':
      case 'disabled':
        return 'UNDELIVERABLE_NO_MAILBOX';
      case 'full':
      case 'full_permanent':
        return 'MAILBOX_FULL';
      case 'greylist':
        return this.options.greylisted === 'first' ? 'GREYLISTED' : accepted();
      case 'policy_block':
        return 'UNKNOWN';
      // no_reply: a mailbox the host never answers for, so the probe times out.
      case 'temp_fail':
      case 'no_reply':
        return 'TRANSIENT';
    }
  }
}
