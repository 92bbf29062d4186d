/**
 * A minimal SMTP client for the mail world's tests: raw socket, reply parsing (RFC 5321
 * §4.2: `xyz-` continues a reply, `xyz ` ends it), STARTTLS. Deliberately not the engine's.
 */
import { connect, type Socket } from 'node:net';
import { connect as tlsConnect, type TLSSocket } from 'node:tls';

export interface Reply {
  code: number;
  lines: string[];
  text: string;
}

export class SmtpTalk {
  private buffer = '';
  private readonly replies: Reply[] = [];
  private pendingLines: string[] = [];
  private waiter: (() => void) | null = null;
  /** Bytes received in total (hostile hosts send a lot). */
  received = 0;
  /** Number of data events (a trickled banner arrives in many). */
  chunks = 0;
  ended = false;
  readonly closed: Promise<void>;

  private constructor(private socket: Socket | TLSSocket) {
    this.closed = new Promise((resolve) => socket.once('close', () => resolve()));
    this.attach(socket);
  }

  static open(ip: string, port: number): Promise<SmtpTalk> {
    return new Promise((resolve, reject) => {
      const socket = connect({ host: ip, port });
      socket.once('connect', () => {
        socket.off('error', reject);
        resolve(new SmtpTalk(socket));
      });
      socket.once('error', reject);
    });
  }

  private attach(socket: Socket | TLSSocket): void {
    socket.on('error', () => undefined);
    socket.on('data', (chunk: Buffer) => this.onData(chunk.toString('latin1')));
    socket.once('end', () => {
      this.ended = true;
      this.wake();
    });
    socket.once('close', () => {
      this.ended = true;
      this.wake();
    });
  }

  private wake(): void {
    const waiter = this.waiter;
    this.waiter = null;
    waiter?.();
  }

  private onData(text: string): void {
    this.received += text.length;
    this.chunks++;
    this.buffer += text;
    let newline: number;
    while ((newline = this.buffer.indexOf('\r\n')) >= 0) {
      const line = this.buffer.slice(0, newline);
      this.buffer = this.buffer.slice(newline + 2);
      // Keep memory flat when a host streams megabytes of continuation lines.
      if (this.pendingLines.length < 1000) this.pendingLines.push(line);
      if (line.charAt(3) !== '-') {
        const code = Number(line.slice(0, 3));
        this.replies.push({ code: Number.isNaN(code) ? -1 : code, lines: this.pendingLines, text: this.pendingLines.join('\n') });
        this.pendingLines = [];
      }
    }
    this.wake();
  }

  /** The next complete reply; rejects after `timeoutMs` or when the server closed first. */
  async read(timeoutMs = 3000): Promise<Reply> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const reply = this.replies.shift();
      if (reply) return reply;
      if (this.ended) throw new Error('connection closed before a reply');
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no reply within ${timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiter = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  }

  write(raw: string): void {
    this.socket.write(raw);
  }

  async command(line: string, timeoutMs?: number): Promise<Reply> {
    this.write(`${line}\r\n`);
    return this.read(timeoutMs);
  }

  /** Upgrades to TLS after a 220 to STARTTLS (self-signed certificate: not verified). */
  startTls(): Promise<void> {
    return new Promise((resolve, reject) => {
      const raw = this.socket as Socket;
      raw.removeAllListeners('data');
      const secure = tlsConnect({ socket: raw, rejectUnauthorized: false, servername: 'mx.presend.test' });
      secure.once('secureConnect', () => {
        this.socket = secure;
        this.attach(secure);
        resolve();
      });
      secure.once('error', reject);
    });
  }

  close(): void {
    this.socket.destroy();
  }
}
