/**
 * A SOCKS5 proxy (RFC 1928) for the mail world: the kind of proxy an operator puts in front of
 * the prober (PRESEND_SMTP_PROXY), including the common one that refuses port 25. Many
 * commercial proxies do: they answer the CONNECT with reply code 0x02 "connection not allowed
 * by ruleset" (RFC 1928 §6), some with 0x05 "connection refused". `presend doctor` must name
 * both, so the tests need a proxy that does each.
 *
 * The protocol side is @pondwader/socks5-server (maintained, no dependencies, runs on Node 20,
 * lets a ruleset deny a CONNECT with 0x02); this file adds the port rules, keeps every
 * destination on loopback (a test proxy must never reach anything else) and closes every
 * socket on close() so a test never hangs.
 */
import { createServer as createTcpServer, type Socket } from 'node:net';
import { Socks5Server, defaultConnectionHandler } from '@pondwader/socks5-server';
import { listen } from './acceptor.js';

export interface SocksProxyOptions {
  /** Destination ports the proxy will not connect to (e.g. [25]). */
  refusePorts?: readonly number[];
  /** How a refused port is answered: 0x02 "not allowed by ruleset" (default) or 0x05 "connection refused". */
  refusal?: 'not_allowed' | 'refused';
  /** Where it listens (default 127.0.0.1). */
  host?: string;
  /** Require these credentials (RFC 1929 username/password); default: no authentication. */
  auth?: { username: string; password: string };
}

/** One CONNECT the proxy was asked for, with the credentials it came with. */
export interface SocksConnect {
  user: string | null;
  password: string | null;
  host: string;
  port: number;
}

export interface SocksProxy {
  host: string;
  port: number;
  /** `socks5://host:port`, for PRESEND_SMTP_PROXY. */
  url: string;
  /** CONNECT requests the proxy granted and refused. */
  counts: { granted: number; refused: number };
  /** Every CONNECT request, in order. */
  connects: SocksConnect[];
  /** The address each client connection came from, in order. */
  clients: string[];
  close(): Promise<void>;
}

export async function startSocksProxy(options: SocksProxyOptions = {}): Promise<SocksProxy> {
  const host = options.host ?? '127.0.0.1';
  const refused = new Set(options.refusePorts ?? []);
  const counts = { granted: 0, refused: 0 };
  const connects: SocksConnect[] = [];
  const clients: string[] = [];
  const sockets = new Set<{ destroy(): void }>();
  const track = (socket: Socket): void => {
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.once('close', () => sockets.delete(socket));
  };
  const socks = new Socks5Server();
  const auth = options.auth;
  if (auth) socks.setAuthHandler((connection) => connection.username === auth.username && connection.password === auth.password);
  // Only loopback destinations: the mail world lives on 127.0.0.0/8, and a proxy started by a
  // test must not be a way out of it.
  socks.setRulesetValidator((connection) => {
    connects.push({ user: connection.username ?? null, password: connection.password ?? null, host: connection.destAddress, port: connection.destPort });
    const allowed = connection.destAddress.startsWith('127.') && !(options.refusal !== 'refused' && refused.has(connection.destPort));
    if (!allowed) counts.refused++;
    return allowed;
  });
  socks.setConnectionHandler((connection, sendStatus) => {
    if (refused.has(connection.destPort)) {
      counts.refused++;
      sendStatus('CONNECTION_REFUSED');
      return;
    }
    counts.granted++;
    const upstream = defaultConnectionHandler(connection, sendStatus);
    if (upstream) track(upstream);
  });
  const server = createTcpServer((socket) => {
    track(socket);
    clients.push(socket.remoteAddress ?? '');
    socket.setNoDelay(true);
    socks._handleConnection(socket);
  });
  const port = await listen(server, host, 0);
  return {
    host,
    port,
    url: `socks5://${host}:${port}`,
    counts,
    connects,
    clients,
    close: async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      await closed;
    },
  };
}
