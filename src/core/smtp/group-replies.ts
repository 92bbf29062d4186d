/**
 * Reading the replies of one pipelined group (one or more transactions of a session, session.ts): which
 * recipients were answered about themselves, which the host put off because of us, and what a
 * group that broke means for its recipients. Pure over the group's entries: it ends the ones
 * answered and returns the others; the queue (host-queue.ts) puts them back (put-back.ts).
 */
import type { Entry } from './put-back.js';
import type { SmtpReply } from '../replies/parse.js';
import { mailReplyOf, type TransactionResult } from './session.js';
import { hostSignalOf } from '../replies/host-signal.js';

const is2xx = (reply: SmtpReply): boolean => reply.code >= 200 && reply.code < 300;
/** A refusal naming recipient attempts (Haraka limit "Too many recipient attempts") caps recipients per connection. */
const PER_CONNECTION_RCPTS = /recipient attempts/i;

/** The entries of a chunk that can be sent: RFC 6531 §3.4, a UTF-8 local part cannot go to a server without SMTPUTF8 (those end here). */
export function sendableIn(batch: readonly Entry[], smtputf8: boolean): Entry[] {
  const sendable: Entry[] = [];
  for (const entry of batch) {
    if (entry.settled) continue;
    if (entry.target.needsUtf8 && !smtputf8) entry.end({ kind: 'utf8_unsupported' });
    else sendable.push(entry);
  }
  return sendable;
}

/** The host ended the group: a 421, an error sleep, or a drop after errors (not a timeout, not a drop out of the blue). */
export function cutByHost(result: TransactionResult, sessionErrors: number): boolean {
  const failure = result.failure;
  return failure?.reply?.code === 421 || result.slowdownAfter !== null || (failure?.kind === 'dropped' && sessionErrors > 0);
}

/**
 * What a group whose replies cannot be used (out of step, or cut before its end proved them in
 * step) means for its recipients:
 * - `host_paused`: the host asked for time (a 421: busy, a rate): nobody was answered about;
 * - `cut`: the host answered part of the group, then cut it (a 421 at its limit, a drop after
 *   errors): the session moved forward, everyone in it is asked again, counted apart from refusals;
 * - `refused`: the answered ones count a refusal; the unanswered ones too when the host broke
 *   the group (`unansweredByHost`), else they were left without a word (an attempt).
 */
export type BrokenGroupFate = { kind: 'host_paused' } | { kind: 'cut' } | { kind: 'refused'; unansweredByHost: boolean };

export function brokenGroupFate(result: TransactionResult, hostAskedForTime: boolean, sessionErrors: number): BrokenGroupFate {
  if (hostAskedForTime) return { kind: 'host_paused' };
  const byHost = cutByHost(result, sessionErrors);
  if (!result.desync && byHost && result.rcpt.some((reply) => reply !== undefined)) return { kind: 'cut' };
  return { kind: 'refused', unansweredByHost: result.desync || byHost };
}

/** The group's entries with a reply (or a refused MAIL, which answers for all) and those without. */
export function splitByAnswer(sendable: readonly Entry[], result: TransactionResult): { answered: Entry[]; unanswered: Entry[] } {
  const answered: Entry[] = [];
  const unanswered: Entry[] = [];
  sendable.forEach((entry, i) => {
    const mail = mailReplyOf(result, i);
    (result.rcpt[i] || (mail && !is2xx(mail)) ? answered : unanswered).push(entry);
  });
  return { answered, unanswered };
}

/**
 * Index from which every RCPT reply of the group is a throttling one. A host that rate-limits
 * answers so to all recipients from some point on; a throttling text between ordinary
 * answers is about that recipient (a greylisting server), read by classify-reply.
 */
export function throttledFrom(rcpt: readonly (SmtpReply | undefined)[]): number {
  let from = rcpt.length;
  for (let i = rcpt.length - 1; i >= 0; i--) {
    const reply = rcpt[i];
    if (reply === undefined) continue;
    if (hostSignalOf(reply) !== 'throttled') break;
    from = i;
  }
  return from;
}

export interface GroupReading {
  /** Refused with the server's recipient limit (452 4.5.3): back, in a smaller group. */
  tooMany: Entry[];
  /** Put off by a throttling reply about us (the MAIL's, or the RCPTs' from some point on): back, unasked. */
  paused: Entry[];
  /** The last throttling reply, if any: the host wants a pause. */
  throttle: SmtpReply | null;
  /** Recipients answered about themselves (ended here, each with its attempt). */
  answered: number;
}

/** Reads a group that ended in step: ends each recipient answered about itself, returns the rest. */
export function readGroupReplies(sendable: readonly Entry[], result: TransactionResult): GroupReading {
  const reading: GroupReading = { tooMany: [], paused: [], throttle: null, answered: 0 };
  const throttledAt = throttledFrom(result.rcpt);
  for (const [i, entry] of sendable.entries()) {
    const reply = result.rcpt[i];
    const mail = mailReplyOf(result, i);
    if (mail && !is2xx(mail)) {
      if (hostSignalOf(mail) === 'throttled') {
        reading.throttle = mail;
        reading.paused.push(entry);
      } else {
        entry.attempts++;
        entry.end({ kind: 'mail_rejected', reply: mail });
      }
    } else if (reply) {
      const signal = hostSignalOf(reply);
      if (signal === 'too_many_recipients') reading.tooMany.push(entry);
      else if (signal === 'throttled' && i >= throttledAt) {
        reading.throttle = reply;
        reading.paused.push(entry);
      } else {
        reading.answered++;
        // Asked, and answered about itself: that is an attempt (a "later" included).
        entry.attempts++;
        entry.end({ kind: 'reply', reply });
      }
    }
  }
  return reading;
}

/**
 * A cap on recipients per connection (Haraka's limit plugin), from where the group's throttling
 * reply named recipient attempts: the index in the group of the first such refusal; null when
 * the throttle said nothing of the kind.
 */
export function perConnectionCapAt(result: TransactionResult, throttle: SmtpReply | null, groupSize: number): number | null {
  if (throttle === null || !PER_CONNECTION_RCPTS.test(throttle.text)) return null;
  for (let i = 0; i < groupSize; i++) if (PER_CONNECTION_RCPTS.test(result.rcpt[i]?.text ?? '')) return i;
  return null;
}
