/**
 * A minimal SMTP dialogue on a raw socket, for the hostile hosts that smtp-server cannot
 * imitate (a banner a byte at a time, garbage after STARTTLS, replies that never end). It
 * speaks just enough RFC 5321 for a probe: EHLO/HELO, MAIL, RCPT, RSET, NOOP, QUIT.
 * `intercept` lets a behaviour take over any command before the normal reply.
 */
import type { Socket } from 'node:net';
import { writeReply } from './acceptor.js';
import type { RcptPolicy } from './rcpt-policy.js';
import type { SessionLog, SessionRecorder } from './recorder.js';
import type { MxHostSpec } from './spec.js';

/** Longest command line read before the session is dropped (RFC 5321 §4.5.3.1.4 says 512). */
const MAX_LINE = 4096;

export interface Dialogue {
  socket: Socket;
  log: SessionLog;
  host: MxHostSpec;
  reply(text: string): void;
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
}

function ehloLines(name: string, extensions: string[]): string {
  const keywords = ['PIPELINING', 'SIZE 35882577', '8BITMIME', 'SMTPUTF8', ...extensions];
  return [`250-${name}`, ...keywords.map((k, i) => `${i === keywords.length - 1 ? '250 ' : '250-'}${k}`)].join('\r\n');
}

/** Runs the dialogue on `socket`; the caller has already sent (or is sending) the banner. */
export function runDialogue(socket: Socket, log: SessionLog, options: DialogueOptions): void {
  const { host, policy, recorder } = options;
  const name = host.greeting ?? host.name;
  const dialogue: Dialogue = { socket, log, host, reply: (text) => writeReply(socket, log, text) };
  let buffered = '';
  let sender: string | null = null;
  /** A no_reply mailbox was named: the host reads on but never answers again. */
  let stalled = false;
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => {
    if (stalled) return;
    buffered += chunk;
    if (buffered.length > MAX_LINE && !buffered.includes('\n')) {
      socket.destroy();
      return;
    }
    let newline: number;
    while (!stalled && (newline = buffered.indexOf('\n')) >= 0 && !socket.destroyed) {
      const line = buffered.slice(0, newline).replace(/\r$/, '');
      buffered = buffered.slice(newline + 1);
      const verb = (line.split(' ')[0] ?? '').toUpperCase();
      log.command(line);
      if (verb === 'RCPT') recorder.countRcpt(host.name);
      if (options.intercept?.(verb, line, dialogue)) continue;
      switch (verb) {
        case 'EHLO':
          sender = null;
          dialogue.reply(ehloLines(name, options.extensions ?? []));
          break;
        case 'HELO':
          sender = null;
          dialogue.reply(`250 ${name}`);
          break;
        case 'MAIL':
          sender = /<([^>]*)>/.exec(line)?.[1] ?? '';
          dialogue.reply('250 2.1.0 Ok');
          break;
        case 'RCPT': {
          const recipient = /<([^>]*)>/.exec(line)?.[1];
          if (sender === null) dialogue.reply('503 5.5.1 Error: need MAIL command');
          else if (!recipient) dialogue.reply('501 5.1.3 Bad recipient address syntax');
          else {
            const r = policy.rcpt(recipient, sender, socket.remoteAddress ?? '127.0.0.1', host.webmailAcceptAll === true);
            if (r === null) stalled = true;
            else dialogue.reply(`${r.code} ${r.text}`);
          }
          break;
        }
        case 'RSET':
          sender = null;
          dialogue.reply('250 2.0.0 Ok');
          break;
        case 'NOOP':
          dialogue.reply('250 2.0.0 Ok');
          break;
        case 'QUIT':
          dialogue.reply('221 2.0.0 Bye');
          log.end();
          socket.end();
          return;
        default:
          dialogue.reply('502 5.5.2 Error: command not recognized');
      }
    }
  });
}
