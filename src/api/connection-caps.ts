/**
 * Caps on open connections, kept at the socket, before a byte of HTTP is parsed (issue 21,
 * defect 6: ~20,000 slow-header connections from two addresses reached the process's file
 * limit, and every new client was reset until the headers deadline freed them).
 *
 * - The total is Node's own `server.maxConnections`: a connection past it is closed as it is
 *   accepted.
 * - Per client address: a connection past the cap of its address is answered `503
 *   service_unavailable` with `Retry-After: 1` and closed; other addresses keep their room. IPv6
 *   clients are counted per /64, the block one subscriber is usually given (RFC 6177), since
 *   one host can take any address of it.
 *
 * Behind a reverse proxy every connection comes from the proxy's address: the per-client cap
 * then caps the proxy (docs/deploy.md says what to set).
 */
import { randomUUID } from 'node:crypto';
import { isIPv6 } from 'node:net';
import type { Server } from 'node:http';
import type { Socket } from 'node:net';

export interface ConnectionCaps {
  /** Open connections of the process (PRESEND_MAX_CONNECTIONS). */
  total: number;
  /** Open connections of one client address; 0: no per-client cap (PRESEND_MAX_CONNECTIONS_PER_CLIENT). */
  perClient: number;
}

/** `2001:db8:1:2:…` → `2001:db8:1:2::/64`; an IPv4 address (also IPv4-mapped IPv6) as it is. */
export function clientKey(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return mapped[1] as string;
  if (!isIPv6(address)) return address;
  const [head = '', tail] = address.toLowerCase().split('%')[0]?.split('::') ?? [''];
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  const groups = tail === undefined ? left : [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  return `${groups.slice(0, 4).map((group) => group.replace(/^0+(?=.)/, '')).join(':')}::/64`;
}

function refuse(socket: Socket): void {
  const requestId = randomUUID();
  const body = JSON.stringify({ error: { code: 'service_unavailable', message: 'Too many open connections from your address; close some and retry.', requestId } });
  socket.end(
    `HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
      `Retry-After: 1\r\nX-Request-Id: ${requestId}\r\nConnection: close\r\n\r\n${body}`,
  );
  // What the client sends meanwhile is read and dropped (closing on unread bytes would reset the
  // connection before the answer is read); a client that never closes is cut off after a second.
  socket.resume();
  setTimeout(() => socket.destroy(), 1000).unref();
}

/**
 * Applies the caps to the HTTP server. Its own 'connection' listeners (the HTTP parser's) are
 * wrapped, so that a refused socket never reaches them: not one byte of it is parsed.
 */
export function capConnections(server: Server, caps: ConnectionCaps): void {
  server.maxConnections = caps.total;
  if (caps.perClient === 0) return;
  const open = new Map<string, number>();
  const http = server.listeners('connection') as ((socket: Socket) => void)[];
  server.removeAllListeners('connection');
  server.on('connection', (socket: Socket) => {
    const key = clientKey(socket.remoteAddress ?? '');
    const count = (open.get(key) ?? 0) + 1;
    if (count > caps.perClient) return refuse(socket);
    open.set(key, count);
    socket.once('close', () => {
      const left = (open.get(key) ?? 1) - 1;
      if (left === 0) open.delete(key);
      else open.set(key, left);
    });
    for (const listener of http) listener.call(server, socket);
  });
}
