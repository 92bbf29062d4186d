/**
 * Opening the transport of a probe: a TCP connection, directly or through a SOCKS5 proxy
 * (PRESEND_SMTP_PROXY; port 25 is blocked on most clouds), and the STARTTLS upgrade.
 */
import { connect as tcpConnect, type Socket } from 'node:net';
import { connect as tlsConnect, type TLSSocket } from 'node:tls';
import { SocksClient } from 'socks';

export type ConnectResult =
  | { ok: true; socket: Socket }
  | { ok: false; failure: 'refused' | 'timeout' | 'proxy' | 'dropped'; detail: string; proxyReply?: number };

export interface ProxySettings {
  host: string;
  port: number;
  userId?: string;
  password?: string;
}

/** `socks5://user:pass@host:port` → settings (validated by config; re-checked here). */
export function parseProxyUrl(url: string): ProxySettings {
  const parsed = new URL(url);
  if (parsed.protocol !== 'socks5:' && parsed.protocol !== 'socks5h:') throw new Error(`not a SOCKS5 URL: ${url}`);
  return {
    host: parsed.hostname.replace(/^\[|\]$/g, ''),
    port: parsed.port ? Number(parsed.port) : 1080,
    ...(parsed.username ? { userId: decodeURIComponent(parsed.username) } : {}),
    ...(parsed.password ? { password: decodeURIComponent(parsed.password) } : {}),
  };
}

function direct(ip: string, port: number, timeoutMs: number, localAddress: string | null): Promise<ConnectResult> {
  return new Promise((resolve) => {
    const socket = tcpConnect({ host: ip, port, ...(localAddress ? { localAddress } : {}) });
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({ ok: false, failure: 'timeout', detail: `no TCP connection to ${ip}:${port} within ${timeoutMs} ms` });
    }, timeoutMs);
    socket.once('connect', () => {
      clearTimeout(timer);
      socket.removeAllListeners('error');
      resolve({ ok: true, socket });
    });
    socket.once('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      socket.destroy();
      const refused = error.code === 'ECONNREFUSED' || error.code === 'EHOSTUNREACH' || error.code === 'ENETUNREACH';
      resolve({ ok: false, failure: refused ? 'refused' : 'dropped', detail: `${ip}:${port}: ${error.code ?? error.message}` });
    });
  });
}

async function viaProxy(proxy: ProxySettings, ip: string, port: number, timeoutMs: number, localAddress: string | null): Promise<ConnectResult> {
  try {
    const { socket } = await SocksClient.createConnection({
      proxy: { host: proxy.host, port: proxy.port, type: 5, userId: proxy.userId, password: proxy.password },
      command: 'connect',
      // The IP, not the name: the address was resolved and safety-checked here, so a
      // SOCKS5h proxy cannot resolve the name to somewhere else.
      destination: { host: ip, port },
      timeout: timeoutMs,
      // The library puts the proxy's host and port over these; port is here only for the type.
      ...(localAddress ? { socket_options: { localAddress, host: proxy.host, port: proxy.port } } : {}),
    });
    return { ok: true, socket };
  } catch (error) {
    const message = (error as Error).message;
    const proxyReply = socksReplyOf(message);
    // The proxy answered the CONNECT with a refusal of its own (RFC 1928 §6): kept as data, so
    // `presend doctor` can name a proxy that does not allow port 25 (0x02) apart from a refused host (0x05).
    if (proxyReply !== null) {
      const refused = proxyReply === 3 || proxyReply === 4 || proxyReply === 5; // unreachable or refused: as a direct connection would fail
      return { ok: false, failure: refused ? 'refused' : 'proxy', detail: `proxy: ${message}`, proxyReply };
    }
    if (/timed out|timeout/i.test(message)) return { ok: false, failure: 'timeout', detail: `proxy: ${message}` };
    if (/refused|unreachable/i.test(message)) return { ok: false, failure: 'refused', detail: `proxy: ${message}` };
    return { ok: false, failure: 'proxy', detail: `proxy: ${message}` };
  }
}

/** The `socks` library's names of RFC 1928 §6 reply codes, which its error messages end with. */
const SOCKS5_REPLY_NAMES: Record<string, number> = {
  Failure: 1,
  NotAllowed: 2,
  NetworkUnreachable: 3,
  HostUnreachable: 4,
  ConnectionRefused: 5,
  TTLExpired: 6,
  CommandNotSupported: 7,
  AddressNotSupported: 8,
};

/** The SOCKS5 reply code of a "Socks5 proxy rejected connection - NotAllowed" error, or null. */
export function socksReplyOf(message: string): number | null {
  const name = /rejected connection - (\w+)/i.exec(message)?.[1];
  return name !== undefined ? (SOCKS5_REPLY_NAMES[name] ?? null) : null;
}

/** `localAddress`: the egress route's source address (PRESEND_EGRESS), to the MX host or to the proxy; null: the system's choice. */
export async function openTransport(ip: string, port: number, timeoutMs: number, proxy: ProxySettings | null, localAddress: string | null = null): Promise<ConnectResult> {
  const result = proxy ? await viaProxy(proxy, ip, port, timeoutMs, localAddress) : await direct(ip, port, timeoutMs, localAddress);
  if (result.ok) {
    result.socket.setNoDelay(true);
    // An error after connect surfaces as 'close' to the reply reader; without a listener it would crash the process.
    result.socket.on('error', () => undefined);
  }
  return result;
}

export type TlsResult = { ok: true; socket: TLSSocket } | { ok: false; detail: string };

/**
 * Upgrades after `220` to STARTTLS (RFC 3207). Certificates are not verified
 * (rejectUnauthorized: false): MX certificates are often self-signed or issued for another
 * name, a probe sends no message content, and refusing would only push the probe back to
 * plaintext — encryption still keeps the probed addresses from passive observers.
 */
export function upgradeTls(socket: Socket, servername: string, timeoutMs: number): Promise<TlsResult> {
  return new Promise((resolve) => {
    const isName = /[a-z]/i.test(servername) && !servername.includes(':');
    const secure = tlsConnect({ socket, rejectUnauthorized: false, ...(isName ? { servername } : {}) });
    const timer = setTimeout(() => {
      secure.destroy();
      resolve({ ok: false, detail: `TLS handshake not finished within ${timeoutMs} ms` });
    }, timeoutMs);
    secure.once('secureConnect', () => {
      clearTimeout(timer);
      secure.removeAllListeners('error');
      secure.on('error', () => undefined);
      resolve({ ok: true, socket: secure });
    });
    secure.once('error', (error) => {
      clearTimeout(timer);
      secure.destroy();
      resolve({ ok: false, detail: `TLS handshake failed: ${error.message}` });
    });
  });
}
