/**
 * A tiny scripted SMTP server (and SOCKS5 proxy) on loopback for protocol corners the mail
 * world does not model: EHLO refused, 421 in the middle of a session, 452 too many
 * recipients, slow replies. Each reply is what the script returns for a command line.
 */
import { createServer, connect, type Server, type Socket } from 'node:net';

export interface ScriptContext {
  /** 0-based index of this connection. */
  session: number;
  /** RCPTs seen in the current transaction (reset by MAIL and RSET). */
  rcptsInTransaction: number;
}

/** A reply (CRLF added), a list of replies, or 'close' to drop the connection without a word. */
export type ScriptReply = string | string[] | 'close' | { delayMs: number; reply: string | string[] | 'close' };

export type Script = (line: string, ctx: ScriptContext) => ScriptReply;

export interface ScriptedServer {
  port: number;
  /** Commands received, per session. */
  sessions: string[][];
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
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
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
  return { port, sessions, close: () => closeServer(server, sockets) };
}

export interface Socks5Proxy {
  port: number;
  /** One entry per CONNECT request: who asked, for where. */
  connects: Array<{ user: string; password: string; host: string; port: number }>;
  close(): Promise<void>;
}

/** RFC 1928 SOCKS5 with RFC 1929 username/password, CONNECT to IPv4 only: enough for probes. */
export async function startSocks5Proxy(): Promise<Socks5Proxy> {
  const connects: Socks5Proxy['connects'] = [];
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.on('error', () => undefined);
    let stage: 'greeting' | 'auth' | 'request' | 'piping' = 'greeting';
    let user = '';
    let password = '';
    let pending = Buffer.alloc(0);
    client.on('data', (chunk: Buffer) => {
      if (stage === 'piping') return;
      pending = Buffer.concat([pending, chunk]);
      if (stage === 'greeting' && pending.length >= 2 && pending.length >= 2 + (pending[1] ?? 0)) {
        pending = pending.subarray(2 + (pending[1] ?? 0));
        client.write(Buffer.from([5, 2])); // username/password
        stage = 'auth';
      }
      if (stage === 'auth' && pending.length >= 2) {
        const ulen = pending[1] ?? 0;
        const plen = pending[2 + ulen];
        if (plen === undefined || pending.length < 3 + ulen + plen) return;
        user = pending.subarray(2, 2 + ulen).toString();
        password = pending.subarray(3 + ulen, 3 + ulen + plen).toString();
        pending = pending.subarray(3 + ulen + plen);
        client.write(Buffer.from([1, 0]));
        stage = 'request';
      }
      if (stage === 'request' && pending.length >= 10 && pending[3] === 1) {
        const host = [...pending.subarray(4, 8)].join('.');
        const port = pending.readUInt16BE(8);
        connects.push({ user, password, host, port });
        stage = 'piping';
        const upstream = connect({ host, port }, () => {
          client.write(Buffer.from([5, 0, 0, 1, 0, 0, 0, 0, 0, 0]));
          const rest = pending.subarray(10);
          if (rest.length > 0) upstream.write(rest);
          client.pipe(upstream);
          upstream.pipe(client);
        });
        sockets.add(upstream);
        upstream.on('close', () => client.destroy());
        upstream.on('error', () => client.write(Buffer.from([5, 5, 0, 1, 0, 0, 0, 0, 0, 0]), () => client.destroy()));
        client.on('close', () => upstream.destroy());
      }
    });
  });
  const port = await listen(server);
  return { port, connects, close: () => closeServer(server, sockets) };
}
