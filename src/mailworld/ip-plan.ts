/**
 * Where each MX host lives. Deterministic from the spec alone, so the truth of an address can
 * be computed before the world starts (benchmarks print it; tests compare against it).
 * Linux answers on all of 127.0.0.0/8 without configuration; 127.0.0.1 is left to the DNS
 * server and to clients.
 */
import { isIPv6 } from 'node:net';
import type { MxHostSpec, WorldSpec } from './spec.js';

export interface HostPlacement {
  host: MxHostSpec;
  ip: string;
  /** True when a server is started for it: a loopback IPv4 address and not 'refuse'. */
  served: boolean;
}

function* loopbackAddresses(): Generator<string> {
  for (let b = 0; b < 256; b++) {
    for (let c = 0; c < 256; c++) {
      for (let d = 1; d < 255; d++) {
        if (b === 0 && c === 0 && d === 1) continue;
        yield `127.${b}.${c}.${d}`;
      }
    }
  }
}

export function isLoopbackV4(ip: string): boolean {
  return !isIPv6(ip) && ip.startsWith('127.');
}

export function planHosts(spec: WorldSpec): Map<string, HostPlacement> {
  const taken = new Set(spec.hosts.map((h) => h.ip).filter((ip): ip is string => ip !== undefined));
  const free = loopbackAddresses();
  const plan = new Map<string, HostPlacement>();
  for (const host of spec.hosts) {
    let ip = host.ip;
    if (ip === undefined) {
      for (let next = free.next(); !next.done; next = free.next()) {
        if (!taken.has(next.value)) {
          ip = next.value;
          break;
        }
      }
      if (ip === undefined) throw new Error('mail world: out of loopback addresses');
      taken.add(ip);
    }
    const served = isLoopbackV4(ip) && host.behaviour?.kind !== 'refuse';
    plan.set(host.name.toLowerCase(), { host, ip, served });
  }
  return plan;
}
