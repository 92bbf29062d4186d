/**
 * One short SMTP session with the canary mail server, the way a probe starts one (same
 * transport, same proxy, same HELO name): connect to port 25, read the banner, EHLO, QUIT. It
 * shows whether probes get out at all, and the EHLO reply usually names the address the
 * server saw ("250-mx.example.com Hello [203.0.113.5]", RFC 5321 §4.1.1.1 lets a server say it):
 * the egress address as the rest of the Internet sees it, even behind a NAT or a proxy.
 */
import { isIP } from 'node:net';
import { openTransport, type ConnectResult, type ProxySettings } from '../../core/smtp/connect.js';
import { ReplyReader } from '../../core/replies/read-wire.js';
import { DEFAULT_REPLY_LIMITS, type SmtpReply } from '../../core/replies/parse.js';

export interface CanaryTarget {
  host: string;
  ip: string;
  port: number;
}

export type CanarySession =
  | { kind: 'no_connection'; failure: Extract<ConnectResult, { ok: false }>['failure']; detail: string; proxyReply: number | null }
  | { kind: 'no_banner'; detail: string }
  | { kind: 'refused_at_banner'; banner: SmtpReply }
  | {
      kind: 'greeted';
      banner: SmtpReply;
      /** Null when EHLO got no 250 (the session still showed that port 25 is open). */
      ehlo: SmtpReply | null;
      /** The address the server said it saw, from `[…]` in its EHLO reply. */
      namedAddress: string | null;
      /** This end's address of the TCP connection (the proxy connection's, through a proxy). */
      localAddress: string | null;
    };

/** The bracketed address of an EHLO reply's first line: `[203.0.113.5]`, `[IPv6:2001:db8::1]` (RFC 5321 §4.1.3). */
export function addressNamedIn(reply: SmtpReply): string | null {
  const match = /\[(?:IPv6:)?([0-9a-f:.]+)\]/i.exec(reply.lines[0] ?? '');
  const address = match?.[1]?.replace(/^::ffff:/i, '') ?? null;
  return address !== null && isIP(address) !== 0 ? address : null;
}

/** `localAddress`: the route's source address, as its probes bind to it. */
export async function talkToCanary(target: CanaryTarget, heloName: string, proxy: ProxySettings | null, timeoutMs: number, localAddress: string | null = null): Promise<CanarySession> {
  const opened = await openTransport(target.ip, target.port, timeoutMs, proxy, localAddress);
  if (!opened.ok) return { kind: 'no_connection', failure: opened.failure, detail: opened.detail, proxyReply: opened.proxyReply ?? null };
  const socket = opened.socket;
  const reader = new ReplyReader(socket, DEFAULT_REPLY_LIMITS, Date.now);
  try {
    const banner = await reader.next(timeoutMs);
    if (!banner.ok) return { kind: 'no_banner', detail: banner.detail };
    if (banner.reply.code !== 220) return { kind: 'refused_at_banner', banner: banner.reply };
    socket.write(`EHLO ${heloName}\r\n`);
    const ehlo = await reader.next(timeoutMs);
    const greeting = ehlo.ok && ehlo.reply.code === 250 ? ehlo.reply : null;
    socket.write('QUIT\r\n');
    await reader.next(timeoutMs);
    return {
      kind: 'greeted',
      banner: banner.reply,
      ehlo: greeting,
      namedAddress: greeting ? addressNamedIn(greeting) : null,
      localAddress: socket.localAddress ?? null,
    };
  } finally {
    reader.detach();
    socket.destroy();
  }
}
