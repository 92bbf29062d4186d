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
 *
 * Replies are matched to commands by their order alone (RFC 2920 §3.1), so the session checks
 * that order (replies/check-order.ts): a reply that arrives before its command was sent, or a reply
 * that cannot answer its command, means the server's replies are out of step — the session
 * reports `desync` and none of the group's replies may be used. A group can end with a
 * command whose reply nothing else resembles, which proves that no reply before it was
 * shifted: QUIT (221) when the session ends, or EHLO again (its multi-line greeting; RFC 5321
 * §4.1.4 lets a client repeat it, and it resets the transaction as RSET would) when it goes on.
 */
import type { Socket } from 'node:net';
import { systemClock } from '../ports.js';
import { openTransport, upgradeTls, type ProxySettings } from './connect.js';
import type { ReplyLimits, SmtpReply } from '../replies/parse.js';
import { ReplyReader, type ReadResult } from '../replies/read-wire.js';
import { ReplyTiming, fitsCommand, type GroupStep } from '../replies/check-order.js';
import type { SmtpStep } from './steps.js';
import { SessionTranscript } from '../evidence/transcript.js';
import { PENALISED_FROM_ERRORS } from './host-profile.js';

export type { SmtpStep };

export type SessionFailureKind =
  | 'refused' // nothing listens / unreachable
  | 'timeout' // a step or the session deadline ran out
  | 'dropped' // the server closed the connection mid-session
  | 'protocol' // malformed or oversized replies, or replies out of step with the commands
  | 'tls' // STARTTLS handshake failed
  | 'temporary' // 421 / 4xx where the session needed 2xx, or a server that slowed every reply
  | 'rejected' // 5xx at banner / HELO (policy)
  | 'proxy';

export interface SessionFailure {
  kind: SessionFailureKind;
  step: SmtpStep;
  reply: SmtpReply | null;
  detail: string;
  /** When a temporary failure is known to end (every egress route paused for the provider until then); absent otherwise. */
  retryAt?: number;
}

export interface SessionSettings {
  heloName: string;
  mailFrom: string;
  port: number;
  stepTimeoutMs: number;
  /** Overall lifetime: a trickling server cannot keep a session alive past this. */
  sessionMaxMs: number;
  proxy: ProxySettings | null;
  /** Local address connections are bound to (the egress route's source); absent: the system's choice. */
  localAddress?: string | null;
  useStartTls: boolean;
  limits: ReplyLimits;
  /** Milliseconds on the engine's clock (ports.ts Clock); default the system clock. */
  now?: () => number;
  /** A reply this much later than the ones before it is slow (tarpit, error sleep). Default 600 ms. */
  slowReplyMs?: number;
  /** One command at a time, never pipelined: for a host whose replies were once out of step. */
  strict?: boolean;
  /**
   * The host holds every reply of ours anyway (a penalised client: Haraka karma): late replies
   * are awaited, not read as an error sleep that ends the session.
   */
  awaitSlowReplies?: boolean;
}

export interface Capabilities {
  esmtp: boolean;
  pipelining: boolean;
  smtputf8: boolean;
  starttls: boolean;
}

export interface TransactionResult {
  /** Reply to each transaction's MAIL FROM (one transaction unless the group carried several); null when none arrived (the session failed before it). */
  mails: Array<SmtpReply | null>;
  /** The transaction (index into `mails`) each recipient went in. */
  transactionOf: number[];
  /** Recipients the message already had before this group (a lockstep group going on in an open message); 0 otherwise. */
  rcptsBefore: number;
  /** One entry per recipient, undefined when no reply arrived for it. */
  rcpt: Array<SmtpReply | undefined>;
  /** Set when the session is no longer usable. */
  failure: SessionFailure | null;
  /** The group's last command (QUIT or EHLO) was answered at its place, or the group ran in lockstep: every reply of the group is in step. */
  verified: boolean;
  /** QUIT went with the group and was answered: the session is over. */
  closed: boolean;
  /** Replies out of step with the commands: none of this session's replies can be trusted. */
  desync: boolean;
  /** The server slowed every reply once the session had this many errors (error sleep); the session was dropped. */
  slowdownAfter: number | null;
  /** The EHLO that ended the group was answered late: the host slows repeated greetings (Sendmail). */
  slowEhlo: boolean;
  /** The QUIT that ended the group was answered well after the reply before it (quitAnsweredLate). */
  slowQuit: boolean;
  /** Rejections that came slow (a tarpit holds each one back). */
  slowRejections: number;
  /**
   * The server closed with a 421 right after a repeated greeting's reply: it counts greetings
   * (Postfix counts HELO/EHLO against smtpd_junk_command_limit — 1 in stress mode — and once
   * the error that makes reaches the hard limit, sends the 421 unasked before closing).
   */
  closedAfterGreeting: boolean;
}

export type OpenResult = { ok: true; session: ProbeSession } | { ok: false; failure: SessionFailure };

const is2xx = (reply: SmtpReply): boolean => reply.code >= 200 && reply.code < 300;
const DEFAULT_SLOW_REPLY_MS = 600;
/**
 * A 221 this much later than the path explains is a late one. Exim sets TCP_CORK on its socket
 * before it writes the 221 (smtp_in.c), so the reply leaves when the process closes the socket
 * or the kernel's cork ceiling of 200 ms runs out; a server that just answers QUIT sends it at once.
 */
const SLOW_QUIT_MS = 100;
/** Unsolicited lines tolerated before the 220 greeting (then the session goes strict). */
const MAX_LINES_BEFORE_BANNER = 5;

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

/** How a group ends: QUIT (the session is over), EHLO (it goes on), or nothing to check it. */
export type GroupEnd = 'quit' | 'ehlo' | 'none';

const desynced = (step: SmtpStep, detail: string): SessionFailure => ({ kind: 'protocol', step, reply: null, detail: `${step}: replies out of step with commands (${detail})` });

/** The MAIL FROM reply of the transaction recipient `index` of a group went in (null: none arrived). */
export function mailReplyOf(result: Pick<TransactionResult, 'mails' | 'transactionOf'>, index: number): SmtpReply | null {
  return result.mails[result.transactionOf[index] ?? 0] ?? null;
}

/** Which transaction each of `count` recipients goes in, for transactions of `sizes` recipients (one transaction when absent). */
function transactionIndexes(count: number, sizes: readonly number[] | undefined): number[] {
  const of: number[] = [];
  (sizes ?? [count]).forEach((size, t) => {
    for (let i = 0; i < size && of.length < count; i++) of.push(t);
  });
  const last = Math.max(0, (sizes?.length ?? 1) - 1);
  while (of.length < count) of.push(last);
  return of;
}

export class ProbeSession {
  private transactions = 0;
  /** The last transaction was not ended by EHLO: the next one starts with RSET. */
  private needsReset = false;
  private closed = false;
  /** Error replies (4xx/5xx) this session has collected: what servers count against a client. */
  errors = 0;
  /** HELO/EHLO commands sent in this session (Sendmail slows from the third). */
  greetings: number;
  /** quit() had its 221 well after the path's round trip (SLOW_QUIT_MS). */
  quitAnsweredLate = false;
  /** QUIT was sent outside a group (quit() or quitWithoutWaiting()). */
  private quitting = false;
  /** A lockstep message left open by the last group (MAIL accepted, no RSET since): the next group may go on in it. */
  private openMessage: { mail: SmtpReply; rcpts: number; smtputf8: boolean } | null = null;
  /** What was said, for the evidence of the addresses it serves (evidence/transcript.ts). */
  transcript!: SessionTranscript;

  private constructor(
    private socket: Socket,
    private reader: ReplyReader,
    private readonly settings: SessionSettings,
    private readonly now: () => number,
    private readonly deadline: number,
    readonly greeting: SmtpReply,
    /** The reply to the first EHLO (or HELO): a repeated EHLO must get the same first line. */
    private readonly hello: SmtpReply | null,
    public capabilities: Capabilities,
    /** Round trip of the EHLO exchange: the yardstick for slow replies. */
    private readonly rttMs: number,
    /** How long the TCP connection took: the path's own round trip, before the server said anything. */
    readonly connectMs: number,
    /** Lockstep, unpipelined: the server's replies were out of step once. */
    readonly strict: boolean,
    greetings: number,
  ) {
    this.greetings = greetings;
  }

  /** Connects to the first reachable address and runs the handshake. */
  static async open(host: string, addresses: readonly string[], settings: SessionSettings): Promise<OpenResult> {
    const now = settings.now ?? (() => systemClock.now().getTime());
    const deadline = now() + settings.sessionMaxMs;
    let last: SessionFailure = { kind: 'refused', step: 'connect', reply: null, detail: `${host}: no address` };
    for (const ip of addresses) {
      const budget = Math.min(settings.stepTimeoutMs, deadline - now());
      if (budget <= 0) break;
      const dialled = now();
      const transport = await openTransport(ip, settings.port, budget, settings.proxy, settings.localAddress ?? null);
      if (!transport.ok) {
        last = { kind: transport.failure, step: 'connect', reply: null, detail: transport.detail };
        continue;
      }
      const transcript = new SessionTranscript(host, now, ip);
      transcript.event(`connected to ${ip}:${settings.port}${settings.proxy ? ` through the proxy ${settings.proxy.host}` : ''} in ${now() - dialled} ms`);
      return ProbeSession.handshake(host, transport.socket, settings, now, deadline, now() - dialled, transcript);
    }
    return { ok: false, failure: last };
  }

  private static async handshake(host: string, socket: Socket, settings: SessionSettings, now: () => number, deadline: number, connectMs: number, transcript: SessionTranscript): Promise<OpenResult> {
    let reader = new ReplyReader(socket, settings.limits, now);
    const step = (): number => Math.min(settings.stepTimeoutMs, deadline - now());
    const fail = (failure: SessionFailure): OpenResult => {
      socket.destroy();
      return { ok: false, failure };
    };
    let strict = settings.strict === true;
    let banner = await reader.next(step());
    // Lines before the greeting answer no command: skipped, and the session speaks one command
    // at a time from here (RFC 5321 §4.3.1: the greeting is the server's first reply).
    for (let skipped = 0; banner.ok && banner.reply.code !== 220 && is2xx(banner.reply) && skipped < MAX_LINES_BEFORE_BANNER; skipped++) {
      strict = true;
      banner = await reader.next(step());
    }
    if (!banner.ok) return fail(failureFromRead(banner, 'banner'));
    transcript.replied(banner.reply);
    if (banner.reply.code !== 220) return fail(failureFromReply(banner.reply, 'banner'));

    let rttMs = 0;
    let greetings = 0;
    const greet = async (r: ReplyReader, s: Socket): Promise<{ ehlo: SmtpReply | null } | { failure: SessionFailure }> => {
      // Anything waiting now was sent unasked (e.g. a second greeting): it would be read as the EHLO reply.
      if (r.queued > 0) return { failure: desynced('ehlo', 'a reply came before EHLO was sent') };
      const sentAt = now();
      greetings++;
      s.write(`EHLO ${settings.heloName}\r\n`);
      transcript.sent(`EHLO ${settings.heloName}`);
      const ehlo = await r.next(step());
      if (!ehlo.ok) return { failure: failureFromRead(ehlo, 'ehlo') };
      transcript.replied(ehlo.reply);
      rttMs = Math.max(0, r.lastAt - sentAt);
      if (is2xx(ehlo.reply)) return { ehlo: ehlo.reply };
      if (ehlo.reply.code === 421 || ehlo.reply.code < 500) return { failure: failureFromReply(ehlo.reply, 'ehlo') };
      // RFC 5321 §3.2: a server that does not know EHLO answers 5xx; fall back to HELO.
      greetings++;
      s.write(`HELO ${settings.heloName}\r\n`);
      transcript.sent(`HELO ${settings.heloName}`);
      const helo = await r.next(step());
      if (!helo.ok) return { failure: failureFromRead(helo, 'helo') };
      transcript.replied(helo.reply);
      if (!is2xx(helo.reply)) return { failure: failureFromReply(helo.reply, 'helo') };
      return { ehlo: null };
    };

    let greeted = await greet(reader, socket);
    if ('failure' in greeted) return fail(greeted.failure);
    let capabilities = capabilitiesOf(greeted.ehlo);
    let hello = greeted.ehlo;

    if (capabilities.starttls && settings.useStartTls) {
      socket.write('STARTTLS\r\n');
      transcript.sent('STARTTLS');
      const reply = await reader.next(step());
      if (!reply.ok) return fail(failureFromRead(reply, 'starttls'));
      transcript.replied(reply.reply);
      if (reply.reply.code === 220) {
        // RFC 3207 §5: anything the server sent before the handshake is discarded.
        reader.detach();
        const tls = await upgradeTls(socket, host, step());
        if (!tls.ok) return fail({ kind: 'tls', step: 'starttls', reply: null, detail: tls.detail });
        socket = tls.socket;
        transcript.event('TLS established');
        reader = new ReplyReader(socket, settings.limits, now);
        // RFC 3207 §4.2: forget what was learnt before TLS and greet again.
        greeted = await greet(reader, socket);
        if ('failure' in greeted) return fail(greeted.failure);
        capabilities = capabilitiesOf(greeted.ehlo);
        hello = greeted.ehlo;
      }
      // Any other reply (454 TLS not available): continue in plaintext, as opportunistic TLS allows.
    }
    const session = new ProbeSession(socket, reader, settings, now, deadline, banner.reply, hello, capabilities, rttMs, connectMs, strict, greetings);
    session.transcript = transcript;
    return { ok: true, session };
  }

  /** Round trip of the EHLO exchange, in ms. */
  get roundTripMs(): number {
    return this.rttMs;
  }

  /** The EHLO was answered late for the path (its round trip well past the connection's): the host holds every reply. */
  get greetedSlowly(): boolean {
    return this.rttMs - this.connectMs > (this.settings.slowReplyMs ?? DEFAULT_SLOW_REPLY_MS);
  }

  /** Transactions started on this session. */
  get transactionsDone(): number {
    return this.transactions;
  }

  get remainingMs(): number {
    return this.deadline - this.now();
  }

  get usable(): boolean {
    return !this.closed && this.remainingMs > this.settings.stepTimeoutMs;
  }

  /** Whether command groups go out pipelined (RFC 2920) on this session. */
  get pipelined(): boolean {
    return this.capabilities.pipelining && !this.strict;
  }

  private stepBudget(): number {
    return Math.min(this.settings.stepTimeoutMs, this.deadline - this.now());
  }

  /** Whether a group on this session can end with EHLO (the server spoke ESMTP). */
  get canVerifyWithEhlo(): boolean {
    return this.hello !== null;
  }

  /**
   * MAIL FROM + one RCPT per recipient, ended by `end` (QUIT or EHLO, see above). With
   * PIPELINING (RFC 2920 §3.1: RSET, MAIL and RCPT may be sent without waiting; EHLO or QUIT
   * last) the whole group goes out in one write; each reply must still arrive within the step
   * timeout of the one before it.
   *
   * `sizes` splits the recipients into several transactions of one group — MAIL, RCPT…, RSET,
   * MAIL, RCPT…, then the end — for a host that counts refusals per message (an Exim ACL
   * `delay` from the 4th unknown recipient of a message): each message stays under that count,
   * and the group still costs one round trip. Only when pipelined; a lockstep group is one
   * transaction (each command is a round trip anyway).
   */
  async transaction(recipients: readonly string[], smtputf8: boolean, end: GroupEnd = 'none', sizes?: readonly number[], goOn = false): Promise<TransactionResult> {
    const transactionOf = transactionIndexes(recipients.length, this.pipelined ? sizes : undefined);
    const transactionCount = (transactionOf[transactionOf.length - 1] ?? 0) + 1;
    // `goOn`: more RCPTs in the lockstep message the last group left open (canGoOn), without RSET and MAIL.
    const open = goOn && this.canGoOn(recipients.length, smtputf8) ? this.openMessage : null;
    this.openMessage = null;
    const result: TransactionResult = {
      mails: Array.from({ length: transactionCount }, () => null),
      transactionOf,
      rcptsBefore: open?.rcpts ?? 0,
      rcpt: recipients.map(() => undefined),
      failure: null,
      verified: false,
      closed: false,
      desync: false,
      slowdownAfter: null,
      slowRejections: 0,
      slowEhlo: false,
      slowQuit: false,
      closedAfterGreeting: false,
    };
    this.transcript.begin();
    // A 421 that came after the last group's EHLO was answered: the server is closing (see
    // closedAfterGreeting), not out of step. Nothing of this transaction was sent.
    const closing = this.closingNotice();
    if (closing) {
      result.closedAfterGreeting = this.transactions > 0 && !this.needsReset;
      result.closed = true;
      return this.fail(result, failureFromReply(closing, 'mail'));
    }
    const steps: GroupStep[] = [];
    const commands: string[] = [];
    if (open) {
      result.mails[0] = open.mail;
      this.transcript.groupEvent(`in the message this session opened before (MAIL FROM:<${this.settings.mailFrom}> answered ${open.mail.code}; ${open.rcpts} recipients asked in it so far)`);
    } else if (this.needsReset) {
      steps.push({ step: 'rset', index: -1 });
      commands.push('RSET\r\n');
    }
    // RFC 6531 §3.4: SMTPUTF8 on MAIL announces a UTF-8 envelope.
    const mailCommand = `MAIL FROM:<${this.settings.mailFrom}>${smtputf8 ? ' SMTPUTF8' : ''}\r\n`;
    recipients.forEach((rcpt, index) => {
      const t = transactionOf[index] ?? 0;
      if (!open && (index === 0 || t !== transactionOf[index - 1])) {
        // A later transaction of the group: RSET ends the one before (RFC 5321 §4.1.1.5), pipelinable (RFC 2920 §3.1).
        if (index > 0) {
          steps.push({ step: 'rset', index: -1, transaction: t - 1 });
          commands.push('RSET\r\n');
        }
        steps.push({ step: 'mail', index: -1, transaction: t });
        commands.push(mailCommand);
      }
      steps.push({ step: 'rcpt', index, transaction: t });
      commands.push(`RCPT TO:<${rcpt}>\r\n`);
    });
    if (recipients.length === 0 && !open) {
      steps.push({ step: 'mail', index: -1, transaction: 0 });
      commands.push(mailCommand);
    }
    const ender = end === 'ehlo' && !this.hello ? 'none' : end;
    if (ender === 'quit') {
      steps.push({ step: 'quit', index: -1 });
      commands.push('QUIT\r\n');
    } else if (ender === 'ehlo') {
      steps.push({ step: 'ehlo', index: -1 });
      commands.push(`EHLO ${this.settings.heloName}\r\n`);
      this.greetings++;
    }
    if (!open) this.transactions += transactionCount;
    this.needsReset = ender !== 'ehlo';
    const timing = new ReplyTiming(this.rttMs, Math.max(this.settings.slowReplyMs ?? DEFAULT_SLOW_REPLY_MS, this.rttMs * 4));
    const pipelined = this.pipelined;
    // Late replies in a row, whether one of them was accepted, and the errors before the first.
    let slowRun = 0;
    let slowAccepted = false;
    let slowRunAfter = 0;
    /** When the reply before this one came (pipelined), or when this command went out plus the path's round trip: when a reply is due. */
    let dueAt = 0;
    for (let i = 0; i < steps.length; i++) {
      const { step, index, transaction = 0 } = steps[i] as GroupStep;
      if (i === 0 || !pipelined) {
        // Every earlier reply has been taken: one waiting now was sent unasked.
        if (this.reader.queued > 0) return this.fail(result, desynced(step, 'a reply came before its command was sent'), true);
        timing.sent(this.now());
        dueAt = this.now() + this.rttMs;
        this.socket.write(pipelined ? commands.join('') : (commands[i] ?? ''));
        this.transcript.groupSent(pipelined ? steps : steps.slice(i, i + 1), pipelined ? commands : commands.slice(i, i + 1));
      }
      let reply = this.reader.take();
      if (!reply) {
        const read = await this.reader.next(this.stepBudget());
        if (!read.ok) return this.fail(result, failureFromRead(read, step));
        reply = read.reply;
      }
      this.transcript.groupReplied(steps[i] as GroupStep, reply, this.reader.lastAt);
      const repliedAt = this.reader.lastAt;
      const lateBy = repliedAt - dueAt;
      dueAt = repliedAt;
      if (step === 'ehlo' || step === 'quit') {
        result.slowEhlo = step === 'ehlo' && timing.slow(repliedAt);
        result.slowQuit = step === 'quit' && reply.code === 221 && lateBy > SLOW_QUIT_MS;
        // The group's last reply, at its own place: nothing before it was shifted.
        // A 421 there (the server closing, e.g. Postfix's hard error limit) is in step too.
        const inStep = step === 'quit' ? fitsCommand('quit', reply) : reply.code === 421 || (is2xx(reply) && reply.lines[0] === this.hello?.lines[0]);
        if (!inStep) return this.fail(result, desynced(step, `${reply.code} cannot answer ${step.toUpperCase()}`), true);
        const closing = step === 'ehlo' && reply.code !== 421 ? this.closingNotice() : undefined;
        if (this.reader.queued > 0) return this.fail(result, desynced(step, 'more replies than commands'), true);
        result.verified = true;
        if (closing) {
          // The greeting was answered in its place, then the server said 421 unasked and closed.
          result.closedAfterGreeting = true;
          result.closed = true;
          result.failure = failureFromReply(closing, step);
          this.destroy();
          return result;
        }
        if (step === 'quit' || reply.code === 421) {
          result.closed = true;
          if (reply.code === 421) result.failure = failureFromReply(reply, step);
          this.destroy();
        }
        return result;
      }
      if (!fitsCommand(step, reply)) return this.fail(result, desynced(step, `${reply.code} cannot answer ${step.toUpperCase()}`), true);
      const slow = timing.slow(this.reader.lastAt);
      if (slow) {
        if (slowRun === 0) slowRunAfter = this.errors;
        slowRun++;
        slowAccepted ||= is2xx(reply);
        if (reply.code >= 400) result.slowRejections++;
      } else {
        slowRun = 0;
        slowAccepted = false;
      }
      if (reply.code === 421) return this.fail(result, failureFromReply(reply, step));
      if (reply.code >= 400) this.errors++;
      if (step === 'mail') result.mails[transaction] = reply;
      else if (step === 'rcpt') {
        const mail = result.mails[transaction];
        if (mail && is2xx(mail)) result.rcpt[index] = reply;
      }
      // An error sleep (Postfix smtpd_error_sleep_time, Sendmail BadRcptThrottle) delays every
      // reply once the client has made enough errors, accepted ones too: waiting out the rest of
      // the group would cost a sleep per reply, so the session ends here (what is unanswered goes
      // back to the queue). A tarpit delays the rejections only: those are the answers, awaited.
      // Two late replies in a row, one of them accepted, tell an error sleep from a stall of this
      // process (after which the queued replies all come at once, only the first of them late).
      //
      // A slowdown from so few errors that no MTA's error limit explains it (PENALISED_FROM_ERRORS:
      // Postfix's soft limit is 10) is a penalised client (Haraka karma): every reply will be slow
      // in any session, so the rest of the group is awaited — dropping the session would not
      // free it at the server, which goes on holding each reply it has queued (measured at Haraka
      // behind 80 ms: three sessions dropped after their first slow replies still counted for
      // its `limit` plugin 3 s later, and the next three got "Too many concurrent connections").
      if (slowRun >= 2 && slowAccepted && slowRunAfter > 0 && !this.settings.awaitSlowReplies && result.slowdownAfter === null) {
        result.slowdownAfter = slowRunAfter;
        if (slowRunAfter > PENALISED_FROM_ERRORS) {
          return this.fail(result, { kind: 'temporary', step, reply: null, detail: `${step}: every reply slowed after ${slowRunAfter} errors (error sleep)` });
        }
      }
      if (step === 'mail' && !is2xx(reply) && !pipelined) {
        // Nothing more to ask in this transaction; its end still checks the replies' order.
        const last = steps.findIndex((s) => s.step === 'ehlo' || s.step === 'quit');
        if (last < 0) break;
        i = last - 1;
      }
    }
    if (this.reader.queued > 0) return this.fail(result, desynced('rcpt', 'more replies than commands'), true);
    // In lockstep each reply was read before the next command went out (and none was waiting
    // unasked before each write): in step without a closing command (next-group.ts keepAliveAfter).
    if (!pipelined && ender === 'none') {
      result.verified = true;
      const mail = result.mails[0];
      if (mail && is2xx(mail)) this.openMessage = { mail, rcpts: (open?.rcpts ?? 0) + recipients.length, smtputf8: open?.smtputf8 ?? smtputf8 };
    }
    return result;
  }

  /**
   * Whether `count` more recipients can go in the lockstep message the last group left open: a
   * message takes RCPTs for as long as the client likes (RFC 5321 §3.3), so a lockstep session
   * asks in small groups — its results come as they are known, and the sessions of a host share
   * its line to the end — without paying RSET and MAIL (two round trips) for each.
   */
  canGoOn(count: number, smtputf8: boolean, rcptLimit = Number.POSITIVE_INFINITY): boolean {
    const open = this.openMessage;
    return open !== null && !this.pipelined && !this.closed && (open.smtputf8 || !smtputf8) && open.rcpts + count <= rcptLimit;
  }

  /**
   * A lone 421 that nothing asked for: the server is closing the session (RFC 5321 §3.8 lets it
   * say so before it closes), which shifts no reply. Taken from the queue; undefined otherwise.
   */
  private closingNotice(): SmtpReply | undefined {
    if (this.reader.queued !== 1 || this.reader.peek()?.code !== 421) return undefined;
    return this.reader.take();
  }

  private fail(result: TransactionResult, failure: SessionFailure, desync = false): TransactionResult {
    this.transcript.groupFailed(failure.detail);
    result.failure = failure;
    result.desync = desync;
    this.destroy();
    return result;
  }

  /**
   * Polite end (RFC 5321 §4.1.1.10); bounded by a short wait, never by the server. True when
   * nothing unasked was waiting and the reply, if any came, is QUIT's: every reply read in this
   * session was in step.
   */
  async quit(halfClose = false): Promise<boolean> {
    if (this.closed) return false;
    if (this.reader.queued > 0) {
      this.destroy();
      return false;
    }
    this.quitting = true;
    const sentAt = this.now();
    // `halfClose`: our side ends with the QUIT (the 221 is still read). Exim waits for the
    // client's end after QUIT with its 221 corked, and counts the connection against
    // smtp_accept_max_per_host until then: measured on 4.96, the 221 came 200 ms after a QUIT
    // alone and 3 ms after a QUIT and the end, and 10 new connections were taken at once after
    // the latter where all 10 got "421 Too many concurrent SMTP connections" after the former.
    if (halfClose) this.socket.end('QUIT\r\n');
    else this.socket.write('QUIT\r\n');
    const reply = await this.reader.next(Math.min(this.settings.stepTimeoutMs, 1000, Math.max(0, this.remainingMs)));
    this.quitAnsweredLate = reply.ok && reply.reply.code === 221 && this.reader.lastAt - sentAt - this.rttMs > SLOW_QUIT_MS;
    this.destroy();
    return !reply.ok || fitsCommand('quit', reply.reply);
  }

  /**
   * The engine is closing: QUIT goes out (or went out) and the 221 is not waited for. The server
   * has our QUIT before the connection's end (the socket is ended after QUIT is flushed), which
   * is what it needs to close cleanly; its reply is a courtesy, and at a host that corks it
   * (Exim, up to 200 ms) waiting would hold the process's exit.
   */
  quitWithoutWaiting(): void {
    if (this.closed) return;
    if (this.quitting) {
      this.socket.destroy();
      return;
    }
    this.quitting = true;
    this.closed = true;
    this.reader.detach();
    const socket = this.socket;
    socket.end('QUIT\r\n', () => socket.destroy());
  }

  destroy(): void {
    if (this.closed) return;
    this.closed = true;
    this.reader.detach();
    this.socket.destroy();
  }
}
