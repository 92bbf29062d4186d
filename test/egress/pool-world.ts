/**
 * The world of the egress-pool tests: two loopback routes (a = 127.0.0.1, b = 127.0.0.10), a
 * Microsoft-named MX host that turns route b's address away as listed, an ordinary host, and a
 * Barracuda-named host that refuses both routes.
 */
import type { WorldSpec } from '../../src/mailworld/index.js';

export const A = '127.0.0.1';
export const B = '127.0.0.10';
export const MICROSOFT_MX = 'mx1.contoso-test.mail.protection.outlook.com';
export const OTHER_MX = 'mx.plain.test';
export const BARRACUDA_MX = 'd1.cudasvc.com';
/** An independent server (family `other`) that lists route b: b is paused for it alone, not for every `other` server. */
export const LISTING_MX = 'mx.listing.test';
// Each domain keeps one route (route-health.ts pick): several domains per provider use both.
export const MICROSOFT_DOMAINS = ['contoso.test', 'fabrikam.test', 'northwind.test', 'tailspin.test', 'wingtip.test', 'litware.test'];
export const LISTING_DOMAINS = ['strict1.test', 'strict2.test', 'strict3.test', 'strict4.test'];
export const OTHER_DOMAINS = ['plain1.test', 'plain2.test', 'plain3.test', 'plain4.test', 'plain5.test', 'plain6.test'];

export function poolWorld(): WorldSpec {
  const mailboxes = { alice: 'accept', bob: 'accept', carol: 'unknown', dave: 'full', erin: 'accept', frank: 'unknown' } as const;
  return {
    hosts: [
      { name: MICROSOFT_MX, blockClients: [B] },
      { name: OTHER_MX },
      { name: BARRACUDA_MX, blockClients: [A, B] },
      { name: LISTING_MX, blockClients: [B] },
    ],
    domains: [
      ...MICROSOFT_DOMAINS.map((name) => ({ name, mx: [{ host: MICROSOFT_MX, preference: 10 }], mailboxes })),
      ...OTHER_DOMAINS.map((name) => ({ name, mx: [{ host: OTHER_MX, preference: 10 }], mailboxes })),
      { name: 'walled.test', mx: [{ host: BARRACUDA_MX, preference: 10 }], mailboxes },
      ...LISTING_DOMAINS.map((name) => ({ name, mx: [{ host: LISTING_MX, preference: 10 }], mailboxes })),
    ],
  };
}

export const ROUTES = JSON.stringify([
  { name: 'b', source: B, helo: 'probe10.presend.test' },
  { name: 'a', source: A, helo: 'probe.presend.test' },
]);

export const addressesAt = (domain: string): string[] => ['alice', 'bob', 'carol', 'dave', 'erin', 'frank'].map((l) => `${l}@${domain}`);
