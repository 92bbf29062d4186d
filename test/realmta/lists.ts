/**
 * Seeded address lists for the real-MTA tests and benchmark (bench/postfix.ts): two domains or
 * more, names as real lists have them, a share of addresses that do not exist, a few role
 * accounts that do — with the truth about each and the DNS that points the domains at the bed.
 */
import type { PublicVerdict } from '../../src/core/types.js';
import { isRoleLocalPart, startMailWorld, type MailWorld } from '../../src/mailworld/index.js';
import { prng } from '../../src/mailworld/prng.js';

export interface RealMtaList {
  domains: string[];
  /** Every address to verify, the two domains interleaved. */
  addresses: string[];
  /** The ones that exist (the recipient table). */
  existing: Set<string>;
}

const FIRST = ['anna', 'ben', 'carla', 'david', 'elena', 'felix', 'grace', 'hugo', 'ines', 'jonas', 'karin', 'leo', 'maria', 'nils', 'olga', 'paul', 'rosa', 'sami', 'tina', 'victor'];
const LAST = ['adler', 'berg', 'costa', 'dubois', 'eriksen', 'fischer', 'garcia', 'haas', 'ivanova', 'jensen', 'kowalski', 'lopez', 'meyer', 'novak', 'olsen', 'petrov', 'rossi', 'schmidt', 'tanaka', 'weber'];
const ROLES = ['info', 'sales', 'support', 'contact'];

export function postfixList(options: { perDomain: number; unknownShare: number; seed: number; domains?: string[] }): RealMtaList {
  const random = prng(options.seed);
  const domains = options.domains ?? ['alpha.test', 'beta.test'];
  const existing = new Set<string>();
  const perDomain = domains.map((domain) => {
    const used = new Set<string>();
    const list: string[] = [];
    for (const role of ROLES) {
      list.push(`${role}@${domain}`);
      existing.add(`${role}@${domain}`);
      used.add(role);
    }
    while (list.length < options.perDomain) {
      const base = `${FIRST[Math.floor(random() * FIRST.length)]}.${LAST[Math.floor(random() * LAST.length)]}`;
      let local = base;
      for (let n = 2; used.has(local); n++) local = `${base}${n}`;
      used.add(local);
      const address = `${local}@${domain}`;
      list.push(address);
      if (random() >= options.unknownShare) existing.add(address);
    }
    return list;
  });
  const addresses: string[] = [];
  for (let i = 0; i < options.perDomain; i++) for (const list of perDomain) if (list[i]) addresses.push(list[i] as string);
  return { domains, addresses, existing };
}

/** What a verifier should say: unknown recipients have no mailbox, role accounts are ROLE. */
export function truthOf(list: RealMtaList, email: string): PublicVerdict {
  if (!list.existing.has(email)) return 'UNDELIVERABLE_NO_MAILBOX';
  return isRoleLocalPart(email.slice(0, email.lastIndexOf('@'))) ? 'ROLE' : 'DELIVERABLE';
}

/** The MX host name every list domain points at. */
export const BED_MX = 'mx.realmta.test';

/** DNS only (the mail world serves no SMTP here): every domain of the list has its MX at `ip`. */
export function listDns(list: RealMtaList, ip: string): Promise<MailWorld> {
  return startMailWorld({
    hosts: [],
    domains: list.domains.map((name) => ({ name, mx: [{ host: BED_MX, preference: 10 }] })),
    names: [{ name: BED_MX, a: [ip] }],
  });
}
