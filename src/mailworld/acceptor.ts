/**
 * The TCP side every simulated MX host shares: listens on the host's 127.0.0.x, records each
 * session, enforces maxConnections with a 421 (RFC 5321 §4.2.3: "service not available,
 * closing transmission channel"), and can destroy every socket at once so tests never hang.
 */
import { createServer, type Server, type Socket } from 'node:net';
import type { SessionLog, SessionRecorder } from './recorder.js';
import type { MxHostSpec } from './spec.js';

export type SessionHandler = (socket: Socket, log: SessionLog) => void;

export interface Acceptor {
  close(): Promise<void>;
}

/** Writes one reply (one or more CRLF-terminated lines) and records its code. */
export function writeReply(socket: Socket, log: SessionLog, reply: string): void {
  log.reply(replyCode(reply));
  if (!socket.destroyed && socket.writable) socket.write(reply.endsWith('\r\n') ? reply : `${reply}\r\n`);
}

export function replyCode(reply: string): number | null {
  const match = /^(\d{3})[ -]/.exec(reply);
  return match ? Number(match[1]) : null;
}

export function listen(server: Server, ip: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const onError = (error: Error): void => reject(error);
    server.once('error', onError);
    server.listen({ host: ip, port, exclusive: true }, () => {
      server.off('error', onError);
      server.on('error', () => undefined);
      const address = server.address();
      resolve(typeof address === 'object' && address ? address.port : port);
    });
  });
}

/**
 * Starts listening on ip:port (port 0: any free one; the bound port is returned) and hands
 * each admitted connection to `handle`.
 */
export async function startAcceptor(
  host: MxHostSpec,
  ip: string,
  port: number,
  recorder: SessionRecorder,
  handle: SessionHandler,
): Promise<Acceptor & { port: number }> {
  const sockets = new Set<Socket>();
  const server = createServer({ noDelay: true }, (socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.once('close', () => sockets.delete(socket));
    // Admit on the next turn of the event loop: a client that closed one session and at once
    // opened the next has its FIN and its SYN seen in the same poll, and the old session's
    // end must be counted first, or a polite client would look impolite.
    setImmediate(() => admit(socket));
  });

  const admit = (socket: Socket): void => {
    const client = (socket.remoteAddress ?? '').replace(/^::ffff:/, '');
    const log = recorder.begin(host.name, ip, client);
    if (socket.destroyed || socket.readableEnded) {
      log.end();
      socket.destroy();
      return;
    }
    // The session is over for the world when the client's side ends, before 'close' fires.
    socket.once('end', () => log.end());
    socket.once('close', () => log.end());
    if (host.blockClients?.includes(client)) {
      // Postfix reject_rbl_client's reply (postconf(5) default_rbl_reply), at the greeting as smtpd_client_restrictions can give it.
      writeReply(socket, log, `554 5.7.1 Service unavailable; Client host [${client}] blocked using zen.spamhaus.org`);
      socket.end();
      return;
    }
    const limit = host.maxConnections;
    if (limit !== undefined && recorder.openSessions(host.name) > limit) {
      const refuse = (): void => {
        writeReply(socket, log, '421 4.7.0 Too many connections, try again later');
        socket.end();
      };
      if (host.commandLatencyMs) setTimeout(refuse, host.commandLatencyMs);
      else refuse();
      return;
    }
    handle(socket, log);
  };
  const boundPort = await listen(server, ip, port);
  return {
    port: boundPort,
    close: async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      await closed;
    },
  };
}
