/**
 * benchWorld(): N domains, each with its own MX host, filled with a seeded mix of mailboxes,
 * plus the addresses to verify and the truth for each. Same seed, same world, same truth.
 */
import type { PublicVerdict } from '../core/types.js';
import { planHosts } from './ip-plan.js';
import { prng } from './prng.js';
import type { DomainSpec, MailboxBehaviour, MxHostSpec, WorldSpec } from './spec.js';
import { Truth, type TruthOptions } from './truth.js';
import { buildZone } from './zone.js';

export interface BenchWorldOptions {
  domains: number;
  mailboxesPerDomain: number;
  commandLatencyMs?: number;
  maxConnections?: number;
  /** PRNG seed; default 42. */
  seed?: number;
  /** Share of domains that accept every local part. Default 0.05. */
  catchAllShare?: number;
  /** Greylisting period of greylisted mailboxes. Default 500 ms. */
  greylistMs?: number;
  truth?: TruthOptions;
  /**
   * Real servers' defences on the hosts (spec.ts HostDefences): every `tarpitEvery`-th host an
   * Exchange-like tarpit of `tarpitMs` on each 550 5.1.1, every other host Postfix's stock error
   * limits (soft 10 with 1 s sleeps, hard 20). Defended hosts greet after `greetDelayMs`.
   */
  defences?: { tarpitEvery: number; tarpitMs: number; greetDelayMs: number };
}

export type BenchWorld = WorldSpec & {
  /** Every address to verify, in a deterministic order (domains interleaved). */
  addresses: string[];
  truth: Record<string, PublicVerdict>;
};

/** Share of each address kind; the rest are existing personal mailboxes. */
const MIX: Array<[MailboxBehaviour | 'absent' | 'role', number]> = [
  ['absent', 0.15],
  ['full', 0.03],
  ['full_permanent', 0.01],
  ['disabled', 0.03],
  ['greylist', 0.02],
  ['role', 0.04],
];

const FIRST = ['anna', 'ben', 'carla', 'david', 'elena', 'felix', 'grace', 'hugo', 'ines', 'jonas', 'karin', 'leo', 'maria', 'nils', 'olga', 'paul', 'rosa', 'sami', 'tina', 'victor'];
const LAST = ['adler', 'berg', 'costa', 'dubois', 'eriksen', 'fischer', 'garcia', 'haas', 'ivanova', 'jensen', 'kowalski', 'lopez', 'meyer', 'novak', 'olsen', 'petrov', 'rossi', 'schmidt', 'tanaka', 'weber'];
const ROLES = ['info', 'sales', 'support', 'contact', 'billing', 'office', 'press', 'jobs'];

function pickKind(random: () => number): MailboxBehaviour | 'absent' | 'role' {
  let roll = random();
  for (const [kind, share] of MIX) {
    if (roll < share) return kind;
    roll -= share;
  }
  return 'accept';
}

function localPart(random: () => number, kind: string, used: Set<string>): string {
  for (let n = 0; ; n++) {
    const base =
      kind === 'role'
        ? (ROLES[Math.floor(random() * ROLES.length)] ?? 'info')
        : `${FIRST[Math.floor(random() * FIRST.length)]}.${LAST[Math.floor(random() * LAST.length)]}`;
    const candidate = n < 3 ? base : `${base}${n}`;
    if (!used.has(candidate)) {
      used.add(candidate);
      return candidate;
    }
  }
}

export function benchWorld(options: BenchWorldOptions): BenchWorld {
  const random = prng(options.seed ?? 42);
  const hosts: MxHostSpec[] = [];
  const domains: DomainSpec[] = [];
  const perDomain: string[][] = [];
  for (let d = 0; d < options.domains; d++) {
    const name = `bench-${String(d + 1).padStart(4, '0')}.test`;
    const host: MxHostSpec = { name: `mx.${name}` };
    if (options.commandLatencyMs !== undefined) host.commandLatencyMs = options.commandLatencyMs;
    if (options.maxConnections !== undefined) host.maxConnections = options.maxConnections;
    if (options.defences) {
      const { tarpitEvery, tarpitMs, greetDelayMs } = options.defences;
      host.defences = (d + 1) % tarpitEvery === 0 ? { tarpit: { delayMs: tarpitMs } } : { errorLimits: { soft: 10, hard: 20, sleepMs: 1000 }, junkCommandLimit: 100 };
      host.greetDelayMs = greetDelayMs;
    }
    hosts.push(host);
    const mailboxes: Record<string, MailboxBehaviour> = {};
    const used = new Set<string>();
    const addresses: string[] = [];
    for (let m = 0; m < options.mailboxesPerDomain; m++) {
      const kind = pickKind(random);
      const local = localPart(random, kind, used);
      if (kind !== 'absent') mailboxes[local] = kind === 'role' ? 'accept' : kind;
      addresses.push(`${local}@${name}`);
    }
    const catchAll = random() < (options.catchAllShare ?? 0.05);
    domains.push({
      name,
      mx: [{ host: host.name, preference: 10 }],
      mailboxes,
      otherMailboxes: catchAll ? 'accept' : 'unknown',
      greylistMs: options.greylistMs ?? 500,
    });
    perDomain.push(addresses);
  }
  // Interleave domains, as a real list mixes them.
  const addresses: string[] = [];
  for (let i = 0; i < options.mailboxesPerDomain; i++) {
    for (const list of perDomain) {
      const address = list[i];
      if (address !== undefined) addresses.push(address);
    }
  }
  const spec: WorldSpec = { hosts, domains };
  const plan = planHosts(spec);
  const zone = buildZone(spec, new Map([...plan].map(([n, p]) => [n, p.ip])));
  const truth = new Truth(domains, zone, plan.values(), options.truth);
  return { ...spec, addresses, truth: Object.fromEntries(addresses.map((a) => [a, truth.verdict(a)])) };
}
