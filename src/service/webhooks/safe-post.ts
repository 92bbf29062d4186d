/**
 * One webhook attempt over HTTP(S), with the prober's refusal of private addresses
 * (src/core/dns/address-safety.ts): an endpoint URL is anyone's to choose, and a POST to
 * 169.254.169.254 or 10.0.0.5 would make the service a proxy into its own network (SSRF;
 * Standard Webhooks, "Server side request forgery"). The address is judged where the socket
 * connects — the lookup handed to the connection filters what the name resolves to — so a name
 * that resolves to a public address when registered and to a private one when sent (DNS
 * rebinding) is refused all the same. An IP literal is judged before any socket exists.
 * Redirects are not followed (a 3xx is a failed attempt), each attempt has one deadline for the
 * whole exchange, a fresh connection (no pooled socket), and the answer's body is read to at
 * most a few kilobytes and dropped.
 */
import { lookup as systemLookup } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import type { LookupFunction } from 'node:net';
import { mayProbeAddress } from '../../core/dns/address-safety.js';
import type { PrivateMxAllowance } from '../../core/dns/address-safety.js';

export type PostOutcome =
  | { kind: 'answered'; status: number; retryAfter: string | undefined }
  /** No answer: refused before connecting (`refused`), unreachable, reset, or past the deadline. */
  | { kind: 'no_answer'; error: string; refused: boolean };

/** Addresses a host name resolves to (injected by tests; the system resolver otherwise). */
export type ResolveHost = (hostname: string) => Promise<Array<{ address: string; family: number }>>;

export interface PostOptions {
  /** PRESEND_ALLOW_PRIVATE_WEBHOOKS: false, 'loopback' or true, as PRESEND_ALLOW_PRIVATE_MX. */
  allowPrivate: PrivateMxAllowance;
  timeoutMs: number;
  resolve?: ResolveHost;
}

const MAX_BODY_READ = 16 * 1024;
const USER_AGENT = 'Presend-Webhooks/1.0';

const systemResolve: ResolveHost = (hostname) =>
  new Promise((resolve, reject) => systemLookup(hostname, { all: true }, (err, addresses) => (err ? reject(err) : resolve(addresses))));

class AddressRefused extends Error {
  readonly code = 'EPRIVATE';
}

function refusal(what: string): AddressRefused {
  return new AddressRefused(`${what} is a private, loopback or reserved address; PRESEND_ALLOW_PRIVATE_WEBHOOKS allows it`);
}

/** The lookup the socket connects with: only the addresses the allowance permits. */
function guardedLookup(options: PostOptions): LookupFunction {
  const resolve = options.resolve ?? systemResolve;
  return ((hostname: string, lookupOptions: { all?: boolean }, callback: (err: Error | null, address?: unknown, family?: number) => void) => {
    resolve(hostname).then(
      (addresses) => {
        const allowed = addresses.filter((a) => mayProbeAddress(a.address, options.allowPrivate));
        const first = allowed[0];
        if (!first) return callback(refusal(`${hostname} (${addresses.map((a) => a.address).join(', ') || 'no address'})`));
        if (lookupOptions.all) return callback(null, allowed);
        return callback(null, first.address, first.family);
      },
      (err: unknown) => callback(err instanceof Error ? err : new Error(String(err))),
    );
  }) as unknown as LookupFunction;
}

/** Why a URL cannot be sent to at all, before any lookup: null when it may be tried. */
export function literalAddressRefusal(url: URL, allowPrivate: PrivateMxAllowance): string | null {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) !== 0 && !mayProbeAddress(host, allowPrivate)) return refusal(host).message;
  return null;
}

export async function postWebhook(target: string, body: string, headers: Record<string, string>, options: PostOptions): Promise<PostOutcome> {
  const url = new URL(target);
  const literal = literalAddressRefusal(url, options.allowPrivate);
  if (literal) return { kind: 'no_answer', error: literal, refused: true };
  const client = url.protocol === 'https:' ? https : http;
  return new Promise<PostOutcome>((resolve) => {
    const signal = AbortSignal.timeout(options.timeoutMs);
    const request = client.request(
      url,
      {
        method: 'POST',
        agent: false,
        lookup: guardedLookup(options),
        signal,
        headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), 'user-agent': USER_AGENT, ...headers },
      },
      (response) => {
        const retryAfter = response.headers['retry-after'];
        let read = 0;
        response.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read > MAX_BODY_READ) response.destroy();
        });
        response.on('error', () => undefined);
        response.on('close', () => undefined);
        resolve({ kind: 'answered', status: response.statusCode ?? 0, retryAfter: Array.isArray(retryAfter) ? retryAfter[0] : retryAfter });
      },
    );
    request.on('error', (err: Error & { code?: string }) => {
      const timedOut = signal.aborted;
      resolve({
        kind: 'no_answer',
        error: timedOut ? `no answer within ${options.timeoutMs} ms` : err.message || String(err.code),
        refused: err instanceof AddressRefused || err.code === 'EPRIVATE',
      });
    });
    request.end(body);
  });
}
