/**
 * Seeded address lists for the real-MTA tests and benchmark: two domains, names as real lists
 * have them, a share of addresses that do not exist, a few role accounts that do.
 */
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
