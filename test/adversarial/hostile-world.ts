/**
 * The default mail world plus what the internet adds on top: a catch-all probe that is
 * tarpitted while real RCPTs are answered, a banner trickled a byte a second, a farm of
 * thousands of MX records that all lead to one tarpit, and DNS that points mail at loopback,
 * private, link-local and IPv6 loopback addresses.
 */
import { defaultWorld } from '../../src/mailworld/index.js';
import type { DefaultWorld, DomainSpec, MxHostSpec } from '../../src/mailworld/index.js';

/** Every MX of tarpit-farm.test resolves to this one tarpit host. */
export const TARPIT_FARM_IP = '127.0.9.9';
export const FARM_MX_COUNT = 2000;
/** Mailboxes of probe-tarpit-crowd.test. */
export const CROWD = 100;

export function hostileWorld(): DefaultWorld {
  const spec = defaultWorld();
  const hosts: MxHostSpec[] = [
    { name: 'mx.probe-tarpit.test' },
    { name: 'mx.one-byte.test', behaviour: { kind: 'trickle_banner', bytesPerSecond: 1 } },
    { name: 'mx.tarpit-farm.test', ip: TARPIT_FARM_IP, behaviour: { kind: 'tarpit' } },
  ];
  const domains: DomainSpec[] = [
    // Answers the real RCPTs, never answers the random one of the catch-all probe.
    { name: 'probe-tarpit.test', mx: [{ host: 'mx.probe-tarpit.test', preference: 10 }], mailboxes: { alice: 'accept', bob: 'unknown' }, otherMailboxes: 'no_reply' },
    // The same, with a hundred real mailboxes, half of them unknown: one batch, one stalled probe.
    {
      name: 'probe-tarpit-crowd.test',
      mx: [{ host: 'mx.probe-tarpit.test', preference: 10 }],
      mailboxes: Object.fromEntries(Array.from({ length: CROWD }, (_, i) => [`user${i}`, i % 2 ? 'accept' : 'unknown'] as const)),
      otherMailboxes: 'no_reply',
    },
    { name: 'one-byte.test', mx: [{ host: 'mx.one-byte.test', preference: 10 }], mailboxes: { alice: 'accept' } },
    {
      name: 'tarpit-farm.test',
      mx: Array.from({ length: FARM_MX_COUNT }, (_, i) => ({ host: `mx${i}.tarpit-farm.test`, preference: i })),
      mailboxes: { alice: 'accept' },
    },
    // Thousands of MX records, every one on an address no probe may reach.
    {
      name: 'private-farm.test',
      mx: Array.from({ length: FARM_MX_COUNT }, (_, i) => ({ host: `mx${i}.private-farm.test`, preference: i })),
    },
    // No MX: the implicit MX (RFC 5321 §5.1) is the domain's own A record, 127.0.0.1.
    { name: 'implicit-loopback.test', a: ['127.0.0.1'], mailboxes: { alice: 'accept' } },
    { name: 'metadata-mx.test', mx: [{ host: 'mx.metadata.test', preference: 10 }] },
  ];
  const privateAddresses = ['127.0.0.1', '10.1.2.3', '169.254.169.254', '192.168.1.1', '172.16.0.1', '100.64.0.1', '0.0.0.0'];
  const names = [
    ...Array.from({ length: FARM_MX_COUNT }, (_, i) => ({ name: `mx${i}.tarpit-farm.test`, a: [TARPIT_FARM_IP] })),
    ...Array.from({ length: FARM_MX_COUNT }, (_, i) =>
      i % 8 === 7 ? { name: `mx${i}.private-farm.test`, aaaa: ['::1'] } : { name: `mx${i}.private-farm.test`, a: [privateAddresses[i % privateAddresses.length] ?? '10.0.0.1'] },
    ),
    // The cloud metadata address: the classic target of a server-side request forgery.
    { name: 'mx.metadata.test', a: ['169.254.169.254'] },
  ];
  return { ...spec, hosts: [...spec.hosts, ...hosts], domains: [...spec.domains, ...domains], names: [...(spec.names ?? []), ...names] };
}
