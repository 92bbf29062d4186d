/**
 * A tiny scripted SMTP server on loopback (the SOCKS5 proxy is the mail world's, src/mailworld/socks-proxy.ts) for protocol corners the mail
 * world does not model: EHLO refused, 421 in the middle of a session, 452 too many
 * recipients, slow replies. Each reply is what the script returns for a command line.
 */
import { createServer, type Server, type Socket } from 'node:net';

export interface ScriptContext {
  /** 0-based index of this connection. */
  session: number;
  /** RCPTs seen in the current transaction (reset by MAIL and RSET). */
  rcptsInTransaction: number;
  /** Free for a script's own state within the session (e.g. whether it was greeted). */
  greeted?: boolean;
}

/** A reply (CRLF added), a list of replies, or 'close' to drop the connection without a word. */
export type ScriptReply = string | string[] | 'close' | { delayMs: number; reply: string | string[] | 'close' };

export type Script = (line: string, ctx: ScriptContext) => ScriptReply;

export interface ScriptedServer {
  port: number;
  /** Commands received, per session. */
  sessions: string[][];
  /** The client's address, per session. */
  clients: string[];
  close(): Promise<void>;
}

function listen(server: Server): Promise<number> {
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      resolve(typeof address === 'object' && address ? address.port : 0);
    });
  });
}

function closeServer(server: Server, sockets: Set<Socket>): Promise<void> {
  for (const socket of sockets) socket.destroy();
  return new Promise((resolve) => server.close(() => resolve()));
}

export const defaultScript: Script = (line) => {
  const verb = line.split(/[\s:]/)[0]?.toUpperCase();
  switch (verb) {
    case 'CONNECT':
      return '220 scripted.test ESMTP';
    case 'EHLO':
      return ['250-scripted.test', '250-PIPELINING', '250 SMTPUTF8'];
    case 'QUIT':
      return '221 bye';
    case 'RCPT':
      return /unknown/.test(line) ? '550 5.1.1 user unknown' : '250 2.1.5 ok';
    default:
      return '250 ok';
  }
};

export async function startScriptedSmtp(script: Script): Promise<ScriptedServer> {
  const sessions: string[][] = [];
  const clients: string[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    clients.push(socket.remoteAddress ?? '');
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    const commands: string[] = [];
    const ctx: ScriptContext = { session: sessions.length, rcptsInTransaction: 0 };
    sessions.push(commands);
    let chain = Promise.resolve();
    const send = (scripted: ScriptReply): void => {
      chain = chain.then(async () => {
        if (socket.destroyed) return;
        let reply: string | string[] | 'close';
        if (typeof scripted === 'object' && !Array.isArray(scripted)) {
          await new Promise((resolve) => setTimeout(resolve, scripted.delayMs));
          reply = scripted.reply;
        } else reply = scripted;
        if (reply === 'close') {
          socket.destroy();
          return;
        }
        const lines = Array.isArray(reply) ? reply : [reply];
        if (!socket.destroyed) socket.write(lines.map((l) => `${l}\r\n`).join(''));
        if (/^221|^421/.test(lines.at(-1) ?? '')) socket.end();
      });
    };
    send(script('CONNECT', ctx));
    let buffer = '';
    socket.on('data', (chunk) => {
      buffer += chunk.toString('utf8');
      for (let nl = buffer.indexOf('\r\n'); nl >= 0; nl = buffer.indexOf('\r\n')) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 2);
        commands.push(line);
        const verb = line.split(/[\s:]/)[0]?.toUpperCase();
        if (verb === 'MAIL' || verb === 'RSET') ctx.rcptsInTransaction = 0;
        if (verb === 'RCPT') ctx.rcptsInTransaction++;
        send(script(line, ctx));
      }
    });
  });
  const port = await listen(server);
  return { port, sessions, clients, close: () => closeServer(server, sockets) };
}
