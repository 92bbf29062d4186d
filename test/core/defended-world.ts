/**
 * A mail world with one domain on one defended MX host (spec.ts HostDefences) and a seeded
 * list for it: about a third unknown recipients, some disabled and full mailboxes, the rest
 * real — the share of refusals that sets off real servers' defences.
 */
import type { DomainSpec, HostDefences, MailboxBehaviour, WorldSpec } from '../../src/mailworld/index.js';
import { prng } from '../../src/mailworld/prng.js';

export interface DefendedWorld {
  spec: WorldSpec;
  addresses: string[];
  host: string;
}

export function defendedWorld(defences: HostDefences, options: { addresses?: number; unknownShare?: number; seed?: number; latencyMs?: number } = {}): DefendedWorld {
  const random = prng(options.seed ?? 11);
  const host = 'mx.defended.test';
  const domain = 'defended.test';
  const mailboxes: Record<string, MailboxBehaviour> = {};
  const addresses: string[] = [];
  const unknownShare = options.unknownShare ?? 0.3;
  for (let i = 0; i < (options.addresses ?? 60); i++) {
    const roll = random();
    const local = `user${i}`;
    if (roll < unknownShare) {
      // absent from the table: 550 5.1.1
    } else if (roll < unknownShare + 0.04) mailboxes[local] = 'disabled';
    else if (roll < unknownShare + 0.07) mailboxes[local] = 'full';
    else mailboxes[local] = 'accept';
    addresses.push(`${local}@${domain}`);
  }
  const domains: DomainSpec[] = [{ name: domain, mx: [{ host, preference: 10 }], mailboxes }];
  return {
    spec: { hosts: [{ name: host, defences, ...(options.latencyMs ? { commandLatencyMs: options.latencyMs } : {}) }], domains },
    addresses,
    host,
  };
}
