/**
 * SMTP replies (RFC 5321 §4.2): a three-digit code, `-` on every line but the last of a
 * multi-line reply, and text that may start with an enhanced status code (RFC 3463,
 * `class.subject.detail`, e.g. 5.1.1). The parser is incremental and bounded: a hostile
 * server cannot make it buffer more than `maxLineBytes` of an unfinished line or
 * `maxReplyBytes` / `maxLines` of one reply.
 */
import { StringDecoder } from 'node:string_decoder';

export interface SmtpReply {
  code: number;
  /** RFC 3463 enhanced status code of the first line, e.g. "5.1.1"; null when absent. */
  enhanced: string | null;
  lines: string[];
  /** All lines' text joined by a space, for matching. */
  text: string;
}

export interface ReplyLimits {
  maxLineBytes: number;
  maxLines: number;
  maxReplyBytes: number;
}

// RFC 5321 §4.5.3.1.5 allows 512 octets per reply line; real servers stay far below these caps.
export const DEFAULT_REPLY_LIMITS: ReplyLimits = { maxLineBytes: 4096, maxLines: 64, maxReplyBytes: 16_384 };

export type ReplyProblem = 'line_too_long' | 'too_many_lines' | 'reply_too_large' | 'invalid_code' | 'mixed_codes';

// `NNN`, `NNN text`, or `NNN-text` on every line but the last. Replies are tested and sliced
// rather than matched: a batch reads thousands, and each match would allocate an array.
const LINE = /^[2-5]\d\d(?:[ -]|$)/;
const CR = 13;
// Sticky: tried at one position, the end of the match read from lastIndex.
const ENHANCED = /[245]\.\d{1,3}\.\d{1,3}(?=\s|$)/y;

// qmail puts it at the end instead: "550 sorry, no mailbox here by that name. (#5.1.1)".
const QMAIL_ENHANCED = /\(#([245])\.(\d{1,3})\.(\d{1,3})\)/;

function qmailEnhancedOf(text: string): string | null {
  const match = QMAIL_ENHANCED.exec(text);
  return match ? `${match[1]}.${match[2]}.${match[3]}` : null;
}

export function enhancedCodeOf(text: string): string | null {
  const start = text.length - text.trimStart().length;
  ENHANCED.lastIndex = start;
  return ENHANCED.test(text) ? text.slice(start, ENHANCED.lastIndex) : null;
}

export function makeReply(code: number, lines: string[]): SmtpReply {
  const text = lines.join(' ').trim();
  return { code, enhanced: enhancedCodeOf(lines[0] ?? '') ?? qmailEnhancedOf(text), lines, text };
}

/** Parses a whole reply text (tests, logs): "550-5.1.1 a\r\n550 5.1.1 b". */
export function parseReplyText(text: string): SmtpReply {
  const parser = new ReplyParser();
  const result = parser.push(Buffer.from(text.endsWith('\n') ? text : `${text}\r\n`));
  const reply = result.replies[0];
  if (!reply || result.problem) throw new Error(`not an SMTP reply: ${text}`);
  return reply;
}

export class ReplyParser {
  private readonly decoder = new StringDecoder('utf8');
  private partial = '';
  private lines: string[] = [];
  private code = 0;
  private bytes = 0;

  constructor(private readonly limits: ReplyLimits = DEFAULT_REPLY_LIMITS) {}

  /** Feeds bytes; returns the replies completed by them, or the first problem found. */
  push(chunk: Buffer): { replies: SmtpReply[]; problem: ReplyProblem | null } {
    const replies: SmtpReply[] = [];
    const problem = this.feed(chunk, (reply) => void replies.push(reply));
    return { replies, problem };
  }

  /**
   * Feeds bytes and hands each reply they complete to `deliver`, in order; returns the first
   * problem found, or null. No array per chunk: a pipelined transaction arrives in many.
   */
  feed(chunk: Buffer, deliver: (reply: SmtpReply) => void): ReplyProblem | null {
    const text = this.partial + this.decoder.write(chunk);
    let start = 0;
    for (let nl = text.indexOf('\n', start); nl >= 0; nl = text.indexOf('\n', start)) {
      const line = text.slice(start, text.charCodeAt(nl - 1) === CR ? nl - 1 : nl);
      start = nl + 1;
      const problem = this.line(line, deliver);
      if (problem) return problem;
    }
    this.partial = text.slice(start);
    return this.partial.length > this.limits.maxLineBytes ? 'line_too_long' : null;
  }

  private line(line: string, deliver: (reply: SmtpReply) => void): ReplyProblem | null {
    if (line.length > this.limits.maxLineBytes) return 'line_too_long';
    if (!LINE.test(line)) return 'invalid_code';
    const code = Number(line.slice(0, 3));
    // RFC 5321 §4.2.1: every line of a multi-line reply carries the same code.
    if (this.lines.length > 0 && code !== this.code) return 'mixed_codes';
    this.code = code;
    this.bytes += line.length + 2;
    if (this.lines.length + 1 > this.limits.maxLines) return 'too_many_lines';
    if (this.bytes > this.limits.maxReplyBytes) return 'reply_too_large';
    const text = line.slice(4);
    if (line[3] === '-') this.lines.push(text);
    else if (this.lines.length === 0) {
      // Most replies are one line: an array of its own size, not a growable one.
      deliver(makeReply(code, [text]));
      this.bytes = 0;
    } else {
      this.lines.push(text);
      deliver(makeReply(code, this.lines));
      this.lines = [];
      this.bytes = 0;
    }
    return null;
  }
}
