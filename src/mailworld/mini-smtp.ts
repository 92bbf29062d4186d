/**
 * A minimal SMTP dialogue on a raw socket, for the hosts that smtp-server cannot imitate: the
 * hostile ones (a banner a byte at a time, garbage after STARTTLS, replies that never end) and
 * the defended ones (defences.ts: error sleeps, tarpits, limits — replies held back one by one
 * while later ones wait behind them, as a server that processes commands in order does). It
 * speaks just enough RFC 5321 for a probe: EHLO/HELO, MAIL, RCPT, RSET, NOOP, QUIT.
 * `intercept` lets a behaviour take over any command before the normal reply.
 */
import type { Socket } from 'node:net';
import { replyCode } from './acceptor.js';
import type { SessionGuard } from './defences.js';
import type { RcptPolicy } from './rcpt-policy.js';
import type { SessionLog, SessionRecorder } from './recorder.js';
import type { MxHostSpec } from './spec.js';

/** Longest command line read before the session is dropped (RFC 5321 §4.5.3.1.4 says 512). */
const MAX_LINE = 4096;

/**
 * Sends replies in order. Each reply leaves when the server would have produced it — after the
 * one before it, plus its own delay (an error sleep, a tarpit) — and reaches the client
 * `latencyMs` later. With no latency and no delay it is written at once.
 */
export class ReplyScheduler {
  private readonly queue: Array<{ at: number; text: string | null }> = [];
  private lastDeparture = 0;
  private timer: NodeJS.Timeout | null = null;
  private ending = false;

  constructor(
    private readonly socket: Socket,
    private readonly log: SessionLog,
    private readonly latencyMs: number,
  ) {
    socket.once('close', () => {
      if (this.timer) clearTimeout(this.timer);
      this.queue.length = 0;
    });
  }

  /** Queues one reply (one or more CRLF-terminated lines); `delayMs` is the server's own wait before it. */
  send(reply: string, delayMs = 0): void {
    this.log.reply(replyCode(reply));
    this.push(reply.endsWith('\r\n') ? reply : `${reply}\r\n`, delayMs);
  }

  /** Bytes that answer no command (recorded by no reply code). */
  sendUnsolicited(line: string): void {
    this.push(`${line}\r\n`, 0);
  }

  /** Ends the connection once every queued reply is out; with `silent`, sends nothing queued after now. */
  end(): void {
    if (this.ending) return;
    this.ending = true;
    this.push(null, 0);
  }

  private push(text: string | null, delayMs: number): void {
    const now = Date.now();
    const departure = Math.max(now, this.lastDeparture) + delayMs;
    this.lastDeparture = departure;
    this.queue.push({ at: departure + this.latencyMs, text });
    this.pump();
  }

  private pump(): void {
    if (this.timer) return;
    const now = Date.now();
    while (this.queue.length > 0 && (this.queue[0]?.at ?? 0) <= now) {
      const next = this.queue.shift();
      if (!next || this.socket.destroyed) return;
      if (next.text === null) {
        this.socket.end();
        return;
      }
      if (this.socket.writable) this.socket.write(next.text);
    }
    const head = this.queue[0];
    if (head) {
      this.timer = setTimeout(() => {
        this.timer = null;
        this.pump();
      }, head.at - now);
    }
  }
}

export interface Dialogue {
  socket: Socket;
  log: SessionLog;
  host: MxHostSpec;
  /** Queues a reply behind those before it; `delayMs` is the host's own wait before it. */
  reply(text: string, delayMs?: number): void;
}

/** Return true when the behaviour answered the command itself. */
export type Intercept = (verb: string, line: string, dialogue: Dialogue) => boolean;

export interface DialogueOptions {
  host: MxHostSpec;
  policy: RcptPolicy;
  recorder: SessionRecorder;
  /** Extra EHLO keywords, e.g. STARTTLS for tls_fail. */
  extensions?: string[];
  intercept?: Intercept;
  /** The host's defences for this session. */
  guard?: SessionGuard;
  /** Replies go through this (latency, delays); default: written at once. */
  scheduler?: ReplyScheduler;
}

function ehloLines(name: string, extensions: string[]): string {
  const keywords = ['PIPELINING', 'SIZE 35882577', '8BITMIME', 'SMTPUTF8', ...extensions];
  return [`250-${name}`, ...keywords.map((k, i) => `${i === keywords.length - 1 ? '250 ' : '250-'}${k}`)].join('\r\n');
}

/** Runs the dialogue on `socket`; the caller has already sent (or is sending) the banner. */
export function runDialogue(socket: Socket, log: SessionLog, options: DialogueOptions): void {
  const { host, policy, recorder, guard } = options;
  const name = host.greeting ?? host.name;
  const scheduler = options.scheduler ?? new ReplyScheduler(socket, log, 0);
  const dialogue: Dialogue = { socket, log, host, reply: (text, delayMs) => scheduler.send(text, delayMs) };
  let buffered = '';
  let sender: string | null = null;
  /** A no_reply mailbox was named, or the session was closed: the host reads on but never answers again. */
  let stalled = false;

  /** The reply of the mailbox table and the protocol; null for a RCPT never answered (no_reply). */
  const answer = (verb: string, line: string): string | null => {
    switch (verb) {
      case 'EHLO':
        sender = null;
        return ehloLines(name, options.extensions ?? []);
      case 'HELO':
        sender = null;
        return `250 ${name}`;
      case 'MAIL':
        sender = /<([^>]*)>/.exec(line)?.[1] ?? '';
        return '250 2.1.0 Ok';
      case 'RCPT': {
        const recipient = /<([^>]*)>/.exec(line)?.[1];
        if (sender === null) return '503 5.5.1 Error: need MAIL command';
        if (!recipient) return '501 5.1.3 Bad recipient address syntax';
        const r = policy.rcpt(recipient, sender, socket.remoteAddress ?? '127.0.0.1', host.webmailAcceptAll === true);
        return r === null ? null : `${r.code} ${r.text}`;
      }
      case 'RSET':
        sender = null;
        return '250 2.0.0 Ok';
      case 'NOOP':
        return '250 2.0.0 Ok';
      case 'QUIT':
        return '221 2.0.0 Bye';
      default:
        return '502 5.5.2 Error: command not recognized';
    }
  };

  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => {
    if (stalled) return;
    buffered += chunk;
    if (buffered.length > MAX_LINE && !buffered.includes('\n')) {
      socket.destroy();
      return;
    }
    // Commands that arrive together were pipelined by the client (RFC 2920).
    const pipelined = buffered.indexOf('\n') !== buffered.lastIndexOf('\n');
    let newline: number;
    while (!stalled && (newline = buffered.indexOf('\n')) >= 0 && !socket.destroyed) {
      const line = buffered.slice(0, newline).replace(/\r$/, '');
      buffered = buffered.slice(newline + 1);
      const verb = (line.split(' ')[0] ?? '').toUpperCase();
      log.command(line);
      if (verb === 'RCPT') recorder.countRcpt(host.name);
      if (options.intercept?.(verb, line, dialogue)) continue;
      const refusal = guard?.before(verb);
      if (refusal) {
        if (refusal.reply) scheduler.send(refusal.reply);
        guard?.end();
        scheduler.end();
        stalled = true;
        return;
      }
      const text = answer(verb, line);
      if (text === null) {
        stalled = true;
        return;
      }
      const shaped = guard ? guard.after(verb, text) : { reply: text, delayMs: 0, close: false };
      scheduler.send(shaped.reply, shaped.delayMs);
      if (verb === 'MAIL' && pipelined && host.defences?.unsolicited === 'in_pipelined_group') {
        // A line no command asked for, between the replies of a pipelined group.
        log.hit('unsolicited');
        scheduler.sendUnsolicited('250 2.0.0 Ok');
      }
      if (verb === 'QUIT' || shaped.close) {
        log.end();
        guard?.end();
        scheduler.end();
        stalled = true;
        return;
      }
    }
  });
}
