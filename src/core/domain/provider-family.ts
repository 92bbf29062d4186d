/**
 * Provider family from MX host names (docs/design.md §4). The MX names are what a mailbox provider
 * publishes for every hosted domain, so `acme.com` hosted by Google is `google`.
 */
import type { ProviderFamily } from '../types.js';

const FAMILY_SUFFIXES: ReadonlyArray<readonly [Exclude<ProviderFamily, 'other'>, readonly string[]]> = [
  ['google', ['google.com', 'googlemail.com', 'gmail-smtp-in.l.google.com']],
  ['microsoft', ['outlook.com', 'hotmail.com', 'protection.outlook.com', 'outlook.office365.com', 'microsoft.com']],
  ['yahoo', ['yahoodns.net', 'yahoo.com', 'aol.com', 'yahoo.net']],
  ['apple', ['icloud.com', 'me.com', 'mac.com', 'apple.com']],
  ['zoho', ['zoho.com', 'zoho.eu', 'zoho.in', 'zohomail.com']],
  ['proton', ['protonmail.ch', 'protonmail.com', 'proton.me']],
  ['fastmail', ['messagingengine.com', 'fastmail.com']],
  ['mimecast', ['mimecast.com', 'mimecast.co.za', 'mimecast-offshore.com']],
  ['proofpoint', ['pphosted.com', 'ppe-hosted.com', 'proofpoint.com']],
  ['barracuda', ['barracudanetworks.com', 'cudasvc.com', 'barracuda.com']],
];

function matches(host: string, suffix: string): boolean {
  return host === suffix || host.endsWith(`.${suffix}`);
}

export function familyOfHost(host: string): ProviderFamily {
  const name = host.toLowerCase().replace(/\.$/, '');
  for (const [family, suffixes] of FAMILY_SUFFIXES) if (suffixes.some((s) => matches(name, s))) return family;
  return 'other';
}

/** Family of a domain from its MX hosts in preference order; null when there are none. */
export function providerFamily(mxHosts: readonly string[]): ProviderFamily | null {
  if (mxHosts.length === 0) return null;
  for (const host of mxHosts) {
    const family = familyOfHost(host);
    if (family !== 'other') return family;
  }
  return 'other';
}

/** Webmail families known to answer 250 to every RCPT, so an accept proves nothing. */
export function acceptsEveryRcpt(family: ProviderFamily | null): boolean {
  return family === 'yahoo';
}
