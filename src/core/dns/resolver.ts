/**
 * The DNS port and its default adapter over `node:dns/promises` Resolver.
 *
 * Errors are turned into data here, once: NXDOMAIN (a verdict about the domain), "no records
 * of this type" (NODATA, a normal answer), and SERVFAIL / timeout / other failures (about the
 * resolver, never a verdict — RFC 2308 §7 keeps these apart from negative answers).
 */
import { Resolver } from 'node:dns/promises';
import type { MxRecord } from 'node:dns';
import { reverseName } from './reverse-name.js';

/** A DNS server to ask (PRESEND_DNS_SERVERS). */
export interface HostPort {
  host: string;
  port: number;
}

export type DnsFailure = 'nxdomain' | 'nodata' | 'servfail' | 'timeout' | 'error';

export type DnsAnswer<T> = { ok: true; records: T[] } | { ok: false; failure: DnsFailure; detail: string };

/** The small surface the engine needs; tests may pass their own (deps.resolver). */
export interface DnsClient {
  mx(name: string): Promise<DnsAnswer<MxRecord>>;
  a(name: string): Promise<DnsAnswer<string>>;
  aaaa(name: string): Promise<DnsAnswer<string>>;
  cname(name: string): Promise<DnsAnswer<string>>;
}

export function dnsFailureOf(error: unknown): DnsFailure {
  const code = (error as { code?: unknown } | null)?.code;
  switch (code) {
    case 'ENOTFOUND':
      return 'nxdomain';
    case 'ENODATA':
      return 'nodata';
    case 'ESERVFAIL':
      return 'servfail';
    case 'ETIMEOUT':
      return 'timeout';
    default:
      return 'error';
  }
}

async function answer<T>(lookup: () => Promise<T[]>, deadlineMs: number): Promise<DnsAnswer<T>> {
  let timer: NodeJS.Timeout | undefined;
  // c-ares has its own per-try timeout; this deadline also covers its retries and back-off.
  const deadline = new Promise<DnsAnswer<T>>((resolve) => {
    timer = setTimeout(() => resolve({ ok: false, failure: 'timeout', detail: `no answer within ${deadlineMs} ms` }), deadlineMs);
  });
  const query = lookup().then(
    (records): DnsAnswer<T> => ({ ok: true, records }),
    (error: unknown): DnsAnswer<T> => ({ ok: false, failure: dnsFailureOf(error), detail: String((error as Error).message ?? error) }),
  );
  try {
    return await Promise.race([query, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

export interface DnsClientOptions {
  /** Empty: the system's resolvers. Each may carry a port (mail world, local resolvers). */
  servers: HostPort[];
  timeoutMs: number;
}

function serverAddress({ host, port }: HostPort): string {
  const ipv6 = host.includes(':');
  if (port === 53) return host;
  return ipv6 ? `[${host}]:${port}` : `${host}:${port}`;
}

/**
 * What the prober's health checks ask besides (src/service/prober-health): TXT (SPF records,
 * RFC 7208 §3) and PTR (the egress address's name, RFC 1035 §3.5). Not part of the engine's
 * port: a verification never needs them.
 */
export interface DiagnosticDnsClient extends DnsClient {
  /** Each record's character-strings joined, as SPF reads them (RFC 7208 §3.3). */
  txt(name: string): Promise<DnsAnswer<string>>;
  ptr(address: string): Promise<DnsAnswer<string>>;
}

export function createDnsClient(options: DnsClientOptions): DnsClient {
  return createDiagnosticDnsClient(options);
}

export function createDiagnosticDnsClient(options: DnsClientOptions): DiagnosticDnsClient {
  // Two tries, each with half the budget: one lost UDP packet should not cost a verdict.
  const resolver = new Resolver({ timeout: Math.max(50, Math.floor(options.timeoutMs / 2)), tries: 2 });
  if (options.servers.length > 0) resolver.setServers(options.servers.map(serverAddress));
  const deadline = options.timeoutMs + 250;
  return {
    mx: (name) => answer(() => resolver.resolveMx(name), deadline),
    a: (name) => answer(() => resolver.resolve4(name), deadline),
    aaaa: (name) => answer(() => resolver.resolve6(name), deadline),
    cname: (name) => answer(() => resolver.resolveCname(name), deadline),
    txt: (name) => answer(async () => (await resolver.resolveTxt(name)).map((chunks) => chunks.join('')), deadline),
    // resolvePtr, not reverse(): c-ares answers reverse() from /etc/hosts first, which is not what the Internet sees.
    ptr: (address) => answer(() => resolver.resolvePtr(reverseName(address)), deadline),
  };
}
