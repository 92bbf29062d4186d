/**
 * The latency floor of the limits world (world-options.ts LIMITS_WORLD): the least time any
 * prober needs when it must keep under each host's defences, even one that knew in advance which
 * recipients are refused.
 *
 * - A Postfix host slows every reply once a session has made 10 errors: a session may collect
 *   9. A host with R refusals (4xx/5xx replies, the catch-all probe counted) needs
 *   max(2, ⌈R / 9⌉) sessions, two at a time; each round of sessions costs the greeting delay,
 *   the banner, the EHLO and one pipelined group (RFC 2920: nothing may ride behind EHLO).
 * - A tarpit holds back each 550 5.1.1, and replies come in order: the host's T unknown
 *   recipients cost ⌈T / 2⌉ tarpit delays on the busier of its two sessions, after one round.
 * Hosts run in parallel: the floor is the slowest host's.
 */
import type { BenchWorld, BenchWorldOptions } from '../src/mailworld/index.js';

/** Errors a session may make at a Postfix host before every reply slows (smtpd_soft_error_limit 10). */
const FREE_ERRORS = 9;
const REFUSED = new Set(['UNDELIVERABLE_NO_MAILBOX', 'MAILBOX_FULL', 'GREYLISTED']);

export interface LimitsFloor {
  ms: number;
  /** The host that sets it and why, for the report. */
  slowest: string;
  postfixMs: number;
  tarpitMs: number;
}

export function limitsFloor(world: BenchWorld, options: BenchWorldOptions, sessions: number): LimitsFloor {
  const latency = options.commandLatencyMs ?? 0;
  const greet = options.defences?.greetDelayMs ?? 0;
  const round = greet + 3 * latency;
  const byDomain = new Map<string, string[]>();
  for (const address of world.addresses) {
    const domain = address.slice(address.lastIndexOf('@') + 1);
    byDomain.set(domain, [...(byDomain.get(domain) ?? []), address]);
  }
  let postfixMs = 0;
  let tarpitMs = 0;
  let slowest = '';
  let worst = 0;
  for (const domain of world.domains) {
    const host = world.hosts.find((h) => h.name === domain.mx?.[0]?.host);
    const addresses = byDomain.get(domain.name) ?? [];
    const catchAll = domain.otherMailboxes === 'accept';
    let ms: number;
    if (host?.defences?.tarpit) {
      // 550 5.1.1 for a local part not in the table (and for the catch-all probe).
      const unknown = addresses.filter((a) => !(a.slice(0, a.lastIndexOf('@')) in (domain.mailboxes ?? {}))).length + (catchAll ? 0 : 1);
      ms = round + Math.ceil((catchAll ? 0 : unknown) / sessions) * host.defences.tarpit.delayMs;
      tarpitMs = Math.max(tarpitMs, ms);
    } else {
      const refused = addresses.filter((a) => REFUSED.has(world.truth[a] ?? '')).length + (catchAll ? 0 : 1);
      ms = Math.ceil(Math.max(sessions, Math.ceil(refused / FREE_ERRORS)) / sessions) * round;
      postfixMs = Math.max(postfixMs, ms);
    }
    if (ms > worst) {
      worst = ms;
      slowest = `${domain.name} (${host?.defences?.tarpit ? 'tarpit' : 'Postfix limits'})`;
    }
  }
  return { ms: worst, slowest, postfixMs, tarpitMs };
}
