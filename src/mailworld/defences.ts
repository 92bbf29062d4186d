/**
 * The anti-abuse defences of real mail servers (spec.ts HostDefences), as state machines a
 * simulated host consults: HostGuard per host (connections and rates, shared by its sessions)
 * and SessionGuard per session (errors, junk commands, recipients). Each time one goes off
 * the session log records a LimitHit, so tests can assert that a verifier set off none.
 *
 * Sources of the behaviours and their defaults: docs/engine-sessions.md.
 */
import type { SessionLog } from './recorder.js';
import type { HostDefences, MxHostSpec } from './spec.js';

export type LimitHit =
  | 'error_sleep'
  | 'too_many_errors'
  | 'too_many_connections'
  | 'connection_rate'
  | 'recipient_rate'
  | 'recipient_limit'
  | 'tarpit'
  | 'bad_rcpt_throttle'
  | 'greeting_throttle'
  | 'nonmail_limit'
  | 'unknown_delay'
  | 'recipients_max'
  | 'dropped_mid_group'
  | 'throttled'
  | 'unsolicited';

/** A reply that replaces the command's own and ends the session (after it, or at once with `silent`). */
export interface Refusal {
  reply: string | null;
  hit: LimitHit;
}

/** What the command's reply becomes: maybe another text, a delay before it, an end after it. */
export interface Answer {
  reply: string;
  delayMs: number;
  close: boolean;
}

const JUNK = new Set(['NOOP', 'VRFY', 'ETRN', 'RSET']);
/** Exim counts every command but these as non-mail. */
const MAIL_COMMANDS = new Set(['MAIL', 'RCPT', 'DATA', 'BDAT', 'QUIT']);
/** Exim lets one of each of these start a message without counting it. */
const FREE_ONCE_PER_MESSAGE = ['RSET', 'EHLO', 'HELO', 'STARTTLS'];

/** Events in a sliding window of `perMs`: true when one more would exceed `max`. */
function overRate(times: number[], max: number, perMs: number, now: number): boolean {
  while (times.length > 0 && (times[0] ?? 0) <= now - perMs) times.shift();
  if (times.length >= max) return true;
  times.push(now);
  return false;
}

export class HostGuard {
  private readonly open = new Map<string, number>();
  private readonly connects = new Map<string, number[]>();
  private readonly rcpts = new Map<string, number[]>();
  private started = 0;

  constructor(
    readonly host: MxHostSpec,
    readonly defences: HostDefences,
  ) {}

  private get name(): string {
    return this.host.greeting ?? this.host.name;
  }

  /** A new connection from `ip`: the 421 that refuses it, or null (then release() when it ends). */
  admit(ip: string, log: SessionLog): string | null {
    const d = this.defences;
    const open = this.open.get(ip) ?? 0;
    if (d.connectionCountLimit !== undefined && open >= d.connectionCountLimit) {
      log.hit('too_many_connections');
      return `421 4.7.0 ${this.name} Error: too many connections from ${ip}`;
    }
    if (d.connectionRateLimit) {
      let times = this.connects.get(ip);
      if (!times) this.connects.set(ip, (times = []));
      if (overRate(times, d.connectionRateLimit.max, d.connectionRateLimit.perMs, Date.now())) {
        log.hit('connection_rate');
        return `421 4.7.0 ${this.name} Error: too many connections from ${ip}`;
      }
    }
    this.open.set(ip, open + 1);
    return null;
  }

  /** The session admitted for `ip` is over. */
  release(ip: string): void {
    const open = (this.open.get(ip) ?? 1) - 1;
    if (open <= 0) this.open.delete(ip);
    else this.open.set(ip, open);
  }

  session(ip: string, log: SessionLog): SessionGuard {
    return new SessionGuard(this, ip, log, this.started++);
  }

  /** One more RCPT from `ip`: true when it is over the recipient rate. */
  overRecipientRate(ip: string): boolean {
    const limit = this.defences.recipientRateLimit;
    if (!limit) return false;
    let times = this.rcpts.get(ip);
    if (!times) this.rcpts.set(ip, (times = []));
    return overRate(times, limit.max, limit.perMs, Date.now());
  }
}

export class SessionGuard {
  private ended = false;
  private errors = 0;
  private junk = 0;
  private nonmail = 0;
  private free = new Set(FREE_ONCE_PER_MESSAGE);
  private rcptsInSession = 0;
  private rcptsInMessage = 0;
  private badInSession = 0;
  private greetings = 0;
  private readonly d: HostDefences;

  constructor(
    private readonly guard: HostGuard,
    private readonly ip: string,
    private readonly log: SessionLog,
    /** 0 for the host's first session. */
    private readonly index: number,
  ) {
    this.d = guard.defences;
  }

  private get name(): string {
    return this.guard.host.greeting ?? this.guard.host.name;
  }

  /**
   * The session is over for the host: QUIT was read, or the client went. Counted then, as
   * Postfix's anvil counts a connection until its smtpd is done with it.
   */
  end(): void {
    if (this.ended) return;
    this.ended = true;
    this.guard.release(this.ip);
  }

  private get hardLimit(): number | undefined {
    return this.d.stress ? 1 : this.d.errorLimits?.hard;
  }

  /** Before `verb` is processed: a refusal that takes its place and ends the session, or null. */
  before(verb: string): Refusal | null {
    const hard = this.hardLimit;
    if (hard !== undefined && this.errors >= hard) {
      this.log.hit('too_many_errors');
      return { reply: `421 4.7.0 ${this.name} Error: too many errors`, hit: 'too_many_errors' };
    }
    if (this.d.maxNonmail !== undefined && !MAIL_COMMANDS.has(verb)) {
      if (this.free.has(verb === 'HELO' ? 'EHLO' : verb)) this.free.delete(verb === 'HELO' ? 'EHLO' : verb);
      else if (++this.nonmail > this.d.maxNonmail) {
        this.log.hit('nonmail_limit');
        return { reply: `421 ${this.name} too many nonmail commands`, hit: 'nonmail_limit' };
      }
    }
    if (verb === 'RCPT') {
      const drop = this.d.dropMidGroup;
      if (drop && this.index < drop.sessions && this.rcptsInSession >= drop.afterRcpts) {
        this.log.hit('dropped_mid_group');
        return { reply: drop.how === '421' ? `421 4.3.2 ${this.name} Service shutting down, closing transmission channel` : null, hit: 'dropped_mid_group' };
      }
    }
    return null;
  }

  /** The reply `verb` is about to get (`reply`, from the mailbox table): what it becomes. */
  after(verb: string, reply: string): Answer {
    let text = reply;
    let delayMs = 0;
    if (verb === 'MAIL' || verb === 'RSET' || verb === 'EHLO' || verb === 'HELO') {
      this.rcptsInMessage = 0;
      if (verb === 'MAIL') this.free = new Set(FREE_ONCE_PER_MESSAGE);
    }
    const greetingThrottle = this.d.greetingThrottle;
    if ((verb === 'EHLO' || verb === 'HELO') && greetingThrottle && ++this.greetings >= greetingThrottle.after) {
      // Sendmail's checksmtpattack(): 1 s at the limit, then doubling.
      this.log.hit('greeting_throttle');
      delayMs += greetingThrottle.sleepMs * 2 ** (this.greetings - greetingThrottle.after);
    }
    if (verb === 'RCPT') {
      text = this.rcptOverride() ?? text;
      this.rcptsInSession++;
      this.rcptsInMessage++;
      const unknown = /^550 5\.1\.1/.test(text);
      // Sendmail sleeps before each RCPT reply once the session has had `after` bad recipients (srvrsmtp.c n_badrcpts).
      const throttle = this.d.badRcptThrottle;
      if (throttle && this.badInSession >= throttle.after) {
        this.log.hit('bad_rcpt_throttle');
        delayMs += throttle.sleepMs;
      }
      if (text.startsWith('5')) this.badInSession++;
      if (unknown && this.d.tarpit) {
        this.log.hit('tarpit');
        delayMs += this.d.tarpit.delayMs;
      }
      if (unknown && this.d.unknownRecipientDelayMs) {
        this.log.hit('unknown_delay');
        delayMs += this.d.unknownRecipientDelayMs;
      }
    }
    const junkLimit = this.d.stress ? 1 : this.d.junkCommandLimit;
    if (JUNK.has(verb) && junkLimit !== undefined && ++this.junk > junkLimit) this.errors++;
    // Postfix: once the session has made `soft` errors, every reply waits (smtpd_chat_reply).
    const soft = this.d.errorLimits;
    if (soft && this.errors >= soft.soft) {
      this.log.hit('error_sleep');
      delayMs += soft.sleepMs;
    }
    if (/^[45]/.test(text)) this.errors++;
    return { reply: text, delayMs, close: false };
  }

  /** A limit that answers this RCPT instead of the mailbox table. */
  private rcptOverride(): string | null {
    const throttle = this.d.throttle;
    if (throttle && this.rcptsInSession >= throttle.afterRcpts) {
      this.log.hit('throttled');
      return throttle.reply;
    }
    if (this.guard.overRecipientRate(this.ip)) {
      this.log.hit('recipient_rate');
      return `450 4.7.1 Error: too many recipients from ${this.ip}`;
    }
    if (this.d.recipientLimit !== undefined && this.rcptsInMessage >= this.d.recipientLimit) {
      this.log.hit('recipient_limit');
      return '452 4.5.3 Error: too many recipients';
    }
    if (this.d.recipientsMax !== undefined && this.rcptsInMessage >= this.d.recipientsMax) {
      this.log.hit('recipients_max');
      return '452 4.5.3 Too many recipients';
    }
    return null;
  }
}
