/**
 * Reads SMTP replies from a socket with a deadline per reply. Failures come back as data
 * (timeout, closed, protocol) so a hostile server costs at most one deadline and a bounded
 * buffer. Replies that arrive before they are asked for (pipelining, RFC 2920) are queued,
 * up to a cap: a server cannot flood the client with unsolicited replies.
 *
 * Each reply carries the time its bytes arrived (one clock read per chunk, on the injected
 * clock): the session reads reply latency from it to notice a tarpit or an error sleep.
 */
import type { Socket } from 'node:net';
import { ReplyParser, type ReplyLimits, type SmtpReply } from './parse.js';

export type ReadResult =
  | { ok: true; reply: SmtpReply }
  | { ok: false; failure: 'timeout' | 'closed' | 'protocol'; detail: string };

// A transaction has at most RSET + MAIL + 100 RCPT replies outstanding; more is a flood.
const MAX_QUEUED_REPLIES = 256;

export class ReplyReader {
  private readonly parser: ReplyParser;
  private readonly queue: SmtpReply[] = [];
  /** Arrival time of each queued reply, in step with `queue`. */
  private readonly times: number[] = [];
  /** When the chunk being parsed arrived. */
  private chunkAt = 0;
  /** Arrival time of the reply last handed out by take() or next(). */
  lastAt = 0;
  private waiter: ((result: ReadResult) => void) | null = null;
  private ended: ReadResult | null = null;
  private readonly onData = (chunk: Buffer): void => this.data(chunk);
  private readonly onReply = (reply: SmtpReply): void => this.deliver(reply);
  private readonly onClose = (): void => this.finish({ ok: false, failure: 'closed', detail: 'connection closed by server' });

  constructor(
    private readonly socket: Socket,
    limits: ReplyLimits,
    private readonly now: () => number,
  ) {
    this.parser = new ReplyParser(limits);
    socket.on('data', this.onData);
    socket.on('close', this.onClose);
    socket.on('end', this.onClose);
  }

  /** Stops reading (before a STARTTLS upgrade hands the socket to node:tls). */
  detach(): void {
    this.socket.off('data', this.onData);
    this.socket.off('close', this.onClose);
    this.socket.off('end', this.onClose);
  }

  /** Bytes received but not yet asked for: after STARTTLS they must be discarded (RFC 3207 §5). */
  get queued(): number {
    return this.queue.length;
  }

  /**
   * A reply that has already arrived, without waiting: pipelined replies come in bursts, and
   * a transaction of 100 recipients should not pay a promise per reply. Undefined when none is queued.
   */
  /** The reply take() would hand out, left in the queue. */
  peek(): SmtpReply | undefined {
    return this.queue[0];
  }

  take(): SmtpReply | undefined {
    const reply = this.queue.shift();
    if (reply) this.lastAt = this.times.shift() ?? this.lastAt;
    return reply;
  }

  next(timeoutMs: number): Promise<ReadResult> {
    const ready = this.take();
    if (ready) return Promise.resolve({ ok: true, reply: ready });
    if (this.ended) return Promise.resolve(this.ended);
    if (timeoutMs <= 0) return Promise.resolve({ ok: false, failure: 'timeout', detail: 'session deadline reached' });
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.waiter = null;
        resolve({ ok: false, failure: 'timeout', detail: `no complete reply within ${timeoutMs} ms` });
      }, timeoutMs);
      this.waiter = (result) => {
        clearTimeout(timer);
        this.waiter = null;
        resolve(result);
      };
    });
  }

  private data(chunk: Buffer): void {
    if (this.ended) return;
    this.chunkAt = this.now();
    const problem = this.parser.feed(chunk, this.onReply);
    if (problem) {
      this.finish({ ok: false, failure: 'protocol', detail: `malformed reply: ${problem}` });
      this.socket.destroy();
    } else if (this.queue.length > MAX_QUEUED_REPLIES) {
      this.finish({ ok: false, failure: 'protocol', detail: 'too many unsolicited replies' });
      this.socket.destroy();
    }
  }

  private deliver(reply: SmtpReply): void {
    if (this.waiter) {
      this.lastAt = this.chunkAt;
      this.waiter({ ok: true, reply });
    } else {
      this.queue.push(reply);
      this.times.push(this.chunkAt);
    }
  }

  private finish(result: ReadResult): void {
    if (this.ended) return;
    this.ended = result;
    this.waiter?.(result);
  }
}
