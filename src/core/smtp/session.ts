/**
 * One probing SMTP session: banner, EHLO (HELO fallback), opportunistic STARTTLS, then
 * transactions of MAIL FROM + RCPT TO (pipelined when offered), RSET between them, QUIT.
 * DATA is never sent: the probe learns the RCPT reply and stops (RFC 5321 §4.1.1.5 RSET).
 *
 * Hand-written rather than taken from npm: mail libraries (nodemailer's smtp-connection and
 * the like) are built to deliver messages — they have no per-step deadlines plus an overall
 * session deadline, no caps on reply size or line count, cannot pipeline a batch of RCPTs and
 * read the replies one by one without sending DATA, and treat a 5xx at RCPT as an exception
 * rather than the answer. A probe against hostile servers needs all of those.
 */
import type { Socket } from 'node:net';
import { openTransport, upgradeTls, type ProxySettings } from './connect.js';
import type { ReplyLimits, SmtpReply } from './reply.js';
import { ReplyReader, type ReadResult } from './reply-reader.js';

export type SmtpStep = 'connect' | 'banner' | 'ehlo' | 'helo' | 'starttls' | 'mail' | 'rcpt' | 'rset';

export type SessionFailureKind =
  | 'refused' // nothing listens / unreachable
  | 'timeout' // a step or the session deadline ran out
  | 'dropped' // the server closed the connection mid-session
  | 'protocol' // malformed or oversized replies
  | 'tls' // STARTTLS handshake failed
  | 'temporary' // 421 / 4xx where the session needed 2xx
  | 'rejected' // 5xx at banner / HELO (policy)
  | 'proxy';

export interface SessionFailure {
  kind: SessionFailureKind;
  step: SmtpStep;
  reply: SmtpReply | null;
  detail: string;
}

export interface SessionSettings {
  heloName: string;
  mailFrom: string;
  port: number;
  stepTimeoutMs: number;
  /** Overall lifetime: a trickling server cannot keep a session alive past this. */
  sessionMaxMs: number;
  proxy: ProxySettings | null;
  useStartTls: boolean;
  limits: ReplyLimits;
}

export interface Capabilities {
  esmtp: boolean;
  pipelining: boolean;
  smtputf8: boolean;
  starttls: boolean;
}

export interface TransactionResult {
  /** Reply to MAIL FROM; null when the session failed before it arrived. */
  mail: SmtpReply | null;
  /** One entry per recipient, undefined when no reply arrived for it. */
  rcpt: Array<SmtpReply | undefined>;
  /** Set when the session is no longer usable. */
  failure: SessionFailure | null;
}

export type OpenResult = { ok: true; session: ProbeSession } | { ok: false; failure: SessionFailure };

const is2xx = (reply: SmtpReply): boolean => reply.code >= 200 && reply.code < 300;

function capabilitiesOf(ehlo: SmtpReply | null): Capabilities {
  const keywords = new Set((ehlo?.lines.slice(1) ?? []).map((line) => line.trim().split(/\s+/)[0]?.toUpperCase() ?? ''));
  return {
    esmtp: ehlo !== null,
    pipelining: keywords.has('PIPELINING'),
    smtputf8: keywords.has('SMTPUTF8'),
    starttls: keywords.has('STARTTLS'),
  };
}

function failureFromRead(result: Exclude<ReadResult, { ok: true }>, step: SmtpStep): SessionFailure {
  const kind: SessionFailureKind = result.failure === 'closed' ? 'dropped' : result.failure;
  return { kind, step, reply: null, detail: `${step}: ${result.detail}` };
}

function failureFromReply(reply: SmtpReply, step: SmtpStep): SessionFailure {
  const kind: SessionFailureKind = reply.code >= 500 ? 'rejected' : reply.code >= 400 ? 'temporary' : 'protocol';
  return { kind, step, reply, detail: `${step}: ${reply.code} ${reply.text}`.slice(0, 300) };
}

export class ProbeSession {
  private transactions = 0;
  private closed = false;

  private constructor(
    private socket: Socket,
    private reader: ReplyReader,
    private readonly settings: SessionSettings,
    private readonly deadline: number,
    readonly greeting: SmtpReply,
    public capabilities: Capabilities,
  ) {}

  /** Connects to the first reachable address and runs the handshake. */
  static async open(host: string, addresses: readonly string[], settings: SessionSettings): Promise<OpenResult> {
    const deadline = Date.now() + settings.sessionMaxMs;
    let last: SessionFailure = { kind: 'refused', step: 'connect', reply: null, detail: `${host}: no address` };
    for (const ip of addresses) {
      const budget = Math.min(settings.stepTimeoutMs, deadline - Date.now());
      if (budget <= 0) break;
      const transport = await openTransport(ip, settings.port, budget, settings.proxy);
      if (!transport.ok) {
        last = { kind: transport.failure, step: 'connect', reply: null, detail: transport.detail };
        continue;
      }
      return ProbeSession.handshake(host, transport.socket, settings, deadline);
    }
    return { ok: false, failure: last };
  }

  private static async handshake(host: string, socket: Socket, settings: SessionSettings, deadline: number): Promise<OpenResult> {
    let reader = new ReplyReader(socket, settings.limits);
    const step = (): number => Math.min(settings.stepTimeoutMs, deadline - Date.now());
    const fail = (failure: SessionFailure): OpenResult => {
      socket.destroy();
      return { ok: false, failure };
    };
    const banner = await reader.next(step());
    if (!banner.ok) return fail(failureFromRead(banner, 'banner'));
    if (banner.reply.code !== 220) return fail(failureFromReply(banner.reply, 'banner'));

    const greet = async (r: ReplyReader, s: Socket): Promise<{ ehlo: SmtpReply | null } | { failure: SessionFailure }> => {
      s.write(`EHLO ${settings.heloName}\r\n`);
      const ehlo = await r.next(step());
      if (!ehlo.ok) return { failure: failureFromRead(ehlo, 'ehlo') };
      if (is2xx(ehlo.reply)) return { ehlo: ehlo.reply };
      if (ehlo.reply.code === 421 || ehlo.reply.code < 500) return { failure: failureFromReply(ehlo.reply, 'ehlo') };
      // RFC 5321 §3.2: a server that does not know EHLO answers 5xx; fall back to HELO.
      s.write(`HELO ${settings.heloName}\r\n`);
      const helo = await r.next(step());
      if (!helo.ok) return { failure: failureFromRead(helo, 'helo') };
      if (!is2xx(helo.reply)) return { failure: failureFromReply(helo.reply, 'helo') };
      return { ehlo: null };
    };

    let greeted = await greet(reader, socket);
    if ('failure' in greeted) return fail(greeted.failure);
    let capabilities = capabilitiesOf(greeted.ehlo);

    if (capabilities.starttls && settings.useStartTls) {
      socket.write('STARTTLS\r\n');
      const reply = await reader.next(step());
      if (!reply.ok) return fail(failureFromRead(reply, 'starttls'));
      if (reply.reply.code === 220) {
        // RFC 3207 §5: anything the server sent before the handshake is discarded.
        reader.detach();
        const tls = await upgradeTls(socket, host, step());
        if (!tls.ok) return fail({ kind: 'tls', step: 'starttls', reply: null, detail: tls.detail });
        socket = tls.socket;
        reader = new ReplyReader(socket, settings.limits);
        // RFC 3207 §4.2: forget what was learnt before TLS and greet again.
        greeted = await greet(reader, socket);
        if ('failure' in greeted) return fail(greeted.failure);
        capabilities = capabilitiesOf(greeted.ehlo);
      }
      // Any other reply (454 TLS not available): continue in plaintext, as opportunistic TLS allows.
    }
    return { ok: true, session: new ProbeSession(socket, reader, settings, deadline, banner.reply, capabilities) };
  }

  get remainingMs(): number {
    return this.deadline - Date.now();
  }

  get usable(): boolean {
    return !this.closed && this.remainingMs > this.settings.stepTimeoutMs;
  }

  private stepBudget(): number {
    return Math.min(this.settings.stepTimeoutMs, this.deadline - Date.now());
  }

  /**
   * MAIL FROM + one RCPT per recipient. With PIPELINING (RFC 2920 §3.1: RSET, MAIL and RCPT
   * may all be sent without waiting) the whole group goes out in one write; each reply must
   * still arrive within the step timeout of the one before it.
   */
  async transaction(recipients: readonly string[], smtputf8: boolean): Promise<TransactionResult> {
    const commands: string[] = [];
    const needsRset = this.transactions > 0;
    if (needsRset) commands.push('RSET\r\n');
    // RFC 6531 §3.4: SMTPUTF8 on MAIL announces a UTF-8 envelope.
    commands.push(`MAIL FROM:<${this.settings.mailFrom}>${smtputf8 ? ' SMTPUTF8' : ''}\r\n`);
    for (const rcpt of recipients) commands.push(`RCPT TO:<${rcpt}>\r\n`);
    this.transactions++;
    const result: TransactionResult = { mail: null, rcpt: recipients.map(() => undefined), failure: null };
    const steps: SmtpStep[] = [...(needsRset ? (['rset'] as const) : []), 'mail', ...recipients.map(() => 'rcpt' as const)];

    if (this.capabilities.pipelining) {
      this.socket.write(commands.join(''));
      for (let i = 0; i < steps.length; i++) {
        let reply = this.reader.take();
        if (!reply) {
          const read = await this.reader.next(this.stepBudget());
          if (!read.ok) return this.fail(result, failureFromRead(read, steps[i] ?? 'rcpt'));
          reply = read.reply;
        }
        if (!this.record(result, steps[i] ?? 'rcpt', i - (needsRset ? 1 : 0), reply)) return result;
      }
      return result;
    }
    for (const [i, command] of commands.entries()) {
      const step = steps[i] ?? 'rcpt';
      this.socket.write(command);
      const read = await this.reader.next(this.stepBudget());
      if (!read.ok) return this.fail(result, failureFromRead(read, step));
      if (!this.record(result, step, i - (needsRset ? 1 : 0), read.reply)) return result;
      if (step === 'mail' && !is2xx(read.reply)) return result;
    }
    return result;
  }

  /** Stores one reply; false when the session must stop (421: the server is closing). */
  private record(result: TransactionResult, step: SmtpStep, index: number, reply: SmtpReply): boolean {
    if (reply.code === 421) {
      this.fail(result, failureFromReply(reply, step));
      return false;
    }
    if (step === 'mail') result.mail = reply;
    else if (step === 'rcpt' && result.mail && is2xx(result.mail)) result.rcpt[index - 1] = reply;
    return true;
  }

  private fail(result: TransactionResult, failure: SessionFailure): TransactionResult {
    result.failure = failure;
    this.destroy();
    return result;
  }

  /** Polite end (RFC 5321 §4.1.1.10); bounded by a short wait, never by the server. */
  async quit(): Promise<void> {
    if (this.closed) return;
    this.socket.write('QUIT\r\n');
    await this.reader.next(Math.min(this.settings.stepTimeoutMs, 1000, Math.max(0, this.remainingMs)));
    this.destroy();
  }

  destroy(): void {
    if (this.closed) return;
    this.closed = true;
    this.reader.detach();
    this.socket.destroy();
  }
}
