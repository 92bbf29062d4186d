/**
 * Checks on the order and timing of replies within a session.
 *
 * SMTP matches replies to commands by position only (RFC 5321 §4.2, RFC 2920 §3.1). A server
 * (or a middlebox) that sends a line no command asked for shifts every later reply onto the
 * wrong command: an extra `250` ahead of a pipelined group would make the catch-all probe
 * look accepted. Two checks catch it: a reply that is already waiting before its command was
 * sent is unsolicited, and some replies cannot answer some commands (221 is QUIT's alone, a
 * 3xx never answers MAIL, RCPT or RSET).
 *
 * Timing: a reply much later than the ones before it in the same pipelined group is slow. A
 * server delays replies on purpose after errors (Postfix smtpd_error_sleep_time, Sendmail
 * BadRcptThrottle) or on each rejection (Exchange tarpit): the session and the host queue read
 * that from here.
 */
import type { SmtpReply } from './parse.js';
import type { SmtpStep } from '../smtp/steps.js';

/** One command of a group: its step, for RCPT the recipient's index, and the transaction of the group it belongs to (MAIL, RCPT, the RSET that ends it). */
export interface GroupStep {
  step: SmtpStep;
  index: number;
  transaction?: number;
}

/** Whether `reply` can be the answer to a command of this step. */
export function fitsCommand(step: SmtpStep, reply: SmtpReply): boolean {
  const { code } = reply;
  // RFC 5321 §4.3.2: QUIT → 221; 421 (closing) may answer any command.
  if (step === 'quit') return code === 221 || code === 421;
  if (code === 421) return true;
  if (step === 'mail' || step === 'rcpt' || step === 'rset') {
    // 250/251/252 or a 4xx/5xx refusal; never a greeting (220), a closing (221), help (211/214) or 3xx.
    return (code >= 250 && code < 300) || code >= 400;
  }
  return true;
}

/**
 * Tells late replies in a group. The first reply after a write is expected one round trip
 * later; each further reply of a pipelined group is expected right behind the one before.
 */
export class ReplyTiming {
  private last = 0;
  private first = true;

  constructor(
    private readonly rttMs: number,
    private readonly slowMs: number,
  ) {}

  /** Commands were written at `at`. */
  sent(at: number): void {
    this.last = at;
    this.first = true;
  }

  /** A reply arrived at `at`: whether it was slow. */
  slow(at: number): boolean {
    const gap = at - this.last - (this.first ? this.rttMs : 0);
    this.first = false;
    if (at > this.last) this.last = at;
    return gap > this.slowMs;
  }
}
