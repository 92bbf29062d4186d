/**
 * MX hosts that misbehave at the connection level (spec.ts HostBehaviour), on raw sockets.
 * Each one costs the world almost nothing: writes respect back-pressure and stop as soon
 * as the client goes away, so a hostile host can never stall the world or the tests.
 */
import type { Socket } from 'node:net';
import { startAcceptor, type Acceptor } from './acceptor.js';
import { runDialogue, type DialogueOptions } from './mini-smtp.js';
import type { SessionLog } from './recorder.js';
import type { HostBehaviour, MxHostSpec } from './spec.js';
import type { HostContext } from './smtp-host.js';

type Hostile = Exclude<HostBehaviour, { kind: 'normal' } | { kind: 'refuse' }>;

const CONTINUATION_LINE = `250-${'X'.repeat(70)}\r\n`;

function banner(host: MxHostSpec): string {
  return `220 ${host.greeting ?? host.name} ESMTP`;
}

/** Writes what `next()` returns until it returns null or the client is gone, pausing on back-pressure. */
function stream(socket: Socket, next: () => string | null): void {
  const pump = (): void => {
    while (!socket.destroyed && socket.writable) {
      const chunk = next();
      if (chunk === null) return;
      if (!socket.write(chunk)) {
        socket.once('drain', () => setImmediate(pump));
        return;
      }
    }
  };
  pump();
}

/** `250-` lines forever, a batch every 2 ms while the client keeps reading, until it leaves. */
function endlessMultiline(socket: Socket, log: SessionLog): void {
  log.reply(250);
  const batch = CONTINUATION_LINE.repeat(64);
  const timer = setInterval(() => {
    if (socket.destroyed || !socket.writable) {
      clearInterval(timer);
      return;
    }
    if (!socket.writableNeedDrain) socket.write(batch);
  }, 2);
  socket.once('close', () => clearInterval(timer));
}

function hugeReply(socket: Socket, log: SessionLog, bytes: number): void {
  log.reply(250);
  let sent = 0;
  stream(socket, () => {
    if (sent >= bytes) return null;
    const lines = CONTINUATION_LINE.repeat(128);
    sent += lines.length;
    return sent >= bytes ? `${lines}250 OK\r\n` : lines;
  });
}

function trickle(socket: Socket, text: string, bytesPerSecond: number, then: () => void): void {
  const interval = Math.max(1, Math.round(1000 / Math.max(1, bytesPerSecond)));
  let index = 0;
  const timer = setInterval(() => {
    if (socket.destroyed) return clearInterval(timer);
    socket.write(text.slice(index, index + 1));
    index++;
    if (index >= text.length) {
      clearInterval(timer);
      then();
    }
  }, interval);
  socket.once('close', () => clearInterval(timer));
}

function dialogueFor(behaviour: Hostile, host: MxHostSpec, ctx: HostContext): DialogueOptions {
  const base: DialogueOptions = { host, policy: ctx.policy, recorder: ctx.recorder };
  switch (behaviour.kind) {
    case 'drop_after':
      return { ...base, intercept: (verb, _line, d) => (verb === behaviour.command ? (d.socket.destroy(), true) : false) };
    case 'block_on_connect':
      return { ...base, intercept: (verb, _line, d) => (verb === 'QUIT' ? false : (d.reply('503 5.5.1 Error: access denied'), true)) };
    case 'endless_multiline':
      return { ...base, intercept: (verb, _line, d) => (verb === 'EHLO' ? (endlessMultiline(d.socket, d.log), true) : false) };
    case 'huge_reply':
      return { ...base, intercept: (verb, _line, d) => (verb === 'EHLO' ? (hugeReply(d.socket, d.log, behaviour.bytes), true) : false) };
    case 'invalid_reply_codes':
      return {
        ...base,
        intercept: (verb, _line, d) => {
          if (verb === 'QUIT') return false;
          d.log.reply(null);
          d.socket.write(verb === 'EHLO' || verb === 'HELO' ? 'abc hello\r\n' : '999\r\n');
          return true;
        },
      };
    case 'tls_fail':
      return {
        ...base,
        extensions: ['STARTTLS'],
        intercept: (verb, _line, d) => {
          if (verb !== 'STARTTLS') return false;
          d.reply('220 2.0.0 Ready to start TLS');
          // The client's ClientHello gets plain text back instead of a ServerHello.
          d.socket.removeAllListeners('data');
          d.socket.once('data', () => {
            d.socket.write('this is not a TLS handshake\r\n\x00\x01\x02garbage');
            d.socket.end();
          });
          return true;
        },
      };
    case 'slow_rcpt_4xx':
      // Every other command gets its normal answer, queued behind the slow one (order kept).
      return { ...base, intercept: (verb, _line, d) => (verb === 'RCPT' ? (d.reply('451 4.7.1 Try again later', behaviour.delayMs), true) : false) };
    default:
      return base;
  }
}

export function startHostileHost(
  host: MxHostSpec,
  behaviour: Hostile,
  ip: string,
  port: number,
  ctx: HostContext,
): Promise<Acceptor & { port: number }> {
  return startAcceptor(host, ip, port, ctx.recorder, (socket, log) => {
    const options = dialogueFor(behaviour, host, ctx);
    const greet = (text = banner(host)): void => {
      log.reply(Number(text.slice(0, 3)));
      socket.write(`${text}\r\n`);
    };
    switch (behaviour.kind) {
      case 'tarpit':
        // Accept, read and discard, never say a word.
        socket.resume();
        return;
      case 'slow_banner': {
        const timer = setTimeout(() => {
          greet();
          runDialogue(socket, log, options);
        }, behaviour.delayMs);
        socket.once('close', () => clearTimeout(timer));
        return;
      }
      case 'trickle_banner':
        log.reply(220);
        trickle(socket, `${banner(host)}\r\n`, behaviour.bytesPerSecond, () => runDialogue(socket, log, options));
        return;
      case 'block_on_connect':
        greet(behaviour.reply ?? `554 5.7.1 ${host.name} ESMTP not accepting connections from your network`);
        runDialogue(socket, log, options);
        return;
      default:
        greet();
        runDialogue(socket, log, options);
    }
  });
}
