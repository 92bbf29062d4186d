/**
 * A well-behaved MX host: real ESMTP from the `smtp-server` library (EHLO/HELO, STARTTLS,
 * PIPELINING, SMTPUTF8, RSET, MAIL, RCPT, QUIT), fed sockets by the shared acceptor so the
 * world can record every command and reply, add latency and enforce connection limits.
 *
 * Latency model: every reply leaves `commandLatencyMs` after the server produced it, in order,
 * like a network round trip; pipelined commands therefore share one delay (RFC 2920 §3.1).
 */
import type { Socket } from 'node:net';
import { SMTPServer, type SMTPServerAddress, type SMTPServerSession } from 'smtp-server';
import { startAcceptor, replyCode, type Acceptor } from './acceptor.js';
import type { RcptPolicy } from './rcpt-policy.js';
import type { SessionLog, SessionRecorder } from './recorder.js';
import type { MxHostSpec } from './spec.js';
import { WORLD_TLS_CERT, WORLD_TLS_KEY } from './tls.js';

export interface HostContext {
  recorder: SessionRecorder;
  policy: RcptPolicy;
}

type RcptCallback = (err?: Error | null) => void;

/** smtp-server sends `responseCode message` for a handler error; no stack is needed for that. */
function smtpError(code: number, text: string): Error {
  return { name: 'SmtpReply', message: text, responseCode: code } as Error;
}

/**
 * Routes the socket's replies through the session log, delayed by the host's latency. The
 * 220 that answers STARTTLS goes out at once: after it the raw socket belongs to TLS.
 */
function tapWrites(socket: Socket, log: SessionLog, latencyMs: number, state: { startTls: boolean }): void {
  const write = socket.write.bind(socket) as (chunk: string) => boolean;
  const end = socket.end.bind(socket) as () => Socket;
  let corked = false;
  socket.write = ((chunk: string | Uint8Array) => {
    const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('latin1');
    log.reply(replyCode(text));
    if (latencyMs <= 0 || state.startTls) {
      state.startTls = false;
      return write(text);
    }
    setTimeout(() => {
      if (socket.destroyed || !socket.writable) return;
      // Replies falling due together (a pipelined group) leave in one write: corked until the
      // timers of this turn have run, as a real server flushes a group of replies at once.
      if (!corked) {
        corked = true;
        socket.cork();
        setImmediate(() => {
          corked = false;
          socket.uncork();
        });
      }
      write(text);
    }, latencyMs);
    return true;
  }) as Socket['write'];
  if (latencyMs > 0) {
    socket.end = (() => {
      setTimeout(() => end(), latencyMs);
      return socket;
    }) as Socket['end'];
  }
}

export async function startSmtpHost(host: MxHostSpec, ip: string, port: number, ctx: HostContext): Promise<Acceptor & { port: number }> {
  const latency = host.commandLatencyMs ?? 0;
  const logs = new Map<string, { log: SessionLog; state: { startTls: boolean } }>();
  const disabled = ['AUTH'];
  if (!host.starttls) disabled.push('STARTTLS');
  const smtp = new SMTPServer({
    name: host.greeting ?? host.name,
    key: WORLD_TLS_KEY,
    cert: WORLD_TLS_CERT,
    logger: false,
    disableReverseLookup: true,
    disabledCommands: disabled,
    hidePIPELINING: host.pipelining === false,
    hideSMTPUTF8: host.smtputf8 === false,
    size: 35_882_577,
    socketTimeout: 60_000,
    onRcptTo(address: SMTPServerAddress, session: SMTPServerSession, callback: RcptCallback) {
      const sender = session.envelope.mailFrom ? session.envelope.mailFrom.address : '';
      const reply = ctx.policy.rcpt(address.address, sender, session.remoteAddress, host.webmailAcceptAll === true);
      // no_reply: never call back, so smtp-server holds this command and everything pipelined after it.
      if (reply === null) return;
      if (reply.code < 300) callback();
      else callback(smtpError(reply.code, reply.text));
    },
    onSecure(socket, session, callback) {
      const entry = logs.get(session.id);
      if (entry) {
        // After STARTTLS the session speaks through the TLS socket: tap it as well.
        tapWrites(socket as Socket, entry.log, latency, entry.state);
        socket.once('end', () => entry.log.end());
      }
      callback();
    },
    onClose(session) {
      logs.get(session.id)?.log.end();
      logs.delete(session.id);
    },
  });
  smtp.on('error', () => undefined);

  return startAcceptor(host, ip, port, ctx.recorder, (socket, log) => {
    const state = { startTls: false };
    tapWrites(socket, log, latency, state);
    smtp.connect(socket);
    const connection = [...smtp.connections].at(-1);
    if (!connection) return;
    logs.set(connection.id, { log, state });
    const onCommand = connection._onCommand.bind(connection);
    connection._onCommand = (command: Buffer, callback?: () => void) => {
      const line = command.toString('utf8');
      const verb = line.slice(0, 8).trim().split(' ')[0]?.toUpperCase() ?? '';
      log.command(line);
      if (verb === 'RCPT') ctx.recorder.countRcpt(host.name);
      if (verb === 'STARTTLS') state.startTls = true;
      onCommand(command, callback);
      if (verb === 'QUIT') log.end();
    };
    // Probes never send a message; a world that took one would hide an engine bug.
    connection.handler_DATA = (_command: Buffer, callback: () => void) => {
      connection.send(554, '5.7.1 This simulated host accepts no message data');
      callback();
    };
  });
}
