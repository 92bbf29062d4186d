/**
 * What one RCPT reply says about the mailbox: the first row of the reply table
 * (replies/table.ts) that matches. Pure and stateless.
 *
 * For the session code: `class === 'throttled'` means "re-ask later in a new session, more
 * gently; say nothing about the mailbox" — a 421, a rate/connection/recipient/error limit, an
 * X.5.3, or a 4.7.x deferral. `saysNothingAboutMailbox` names every class that is not a verdict.
 */
import type { SmtpReply } from './parse.js';
import { BLOCK_TEXT } from './wording.js';
import { REPLY_TABLE, ruleMatches, type RcptClass, type ReplyAbout, type ReplyRule } from './table.js';

export type { RcptClass, ReplyAbout } from './table.js';

export interface RcptJudgement {
  class: RcptClass;
  /** Whether an SMTP code (reply or enhanced status code) backed the judgement, or only the wording. */
  basis: 'code' | 'text';
  /** Whom the reply is about: that recipient, or the client (replies/table.ts ReplyAbout). */
  about: ReplyAbout;
  /** The id of the reply-table row that decided. */
  rule: string;
  /** Where that row's decision comes from (URL or RFC section). */
  source: string;
}

// One frozen judgement per row, shared by every reply the row matches: judging allocates nothing.
const JUDGEMENTS: ReadonlyMap<ReplyRule, RcptJudgement> = new Map(
  REPLY_TABLE.map((rule) => [rule, Object.freeze({ class: rule.class, about: rule.about, basis: rule.basis, rule: rule.id, source: rule.source })]),
);
const NOTHING_MATCHED: RcptJudgement = Object.freeze({
  class: 'rejected_unclassified',
  about: 'recipient',
  basis: 'code',
  rule: 'no-row',
  source: 'https://www.rfc-editor.org/rfc/rfc5321#section-4.2.1',
});

export function classifyRcptReply(reply: SmtpReply): RcptJudgement {
  for (const rule of REPLY_TABLE) {
    if (ruleMatches(rule, reply)) return JUDGEMENTS.get(rule) ?? NOTHING_MATCHED;
  }
  // Codes outside 2xx–5xx never reach here (the reply parser refuses them); kept total anyway.
  return NOTHING_MATCHED;
}

const SILENT: ReadonlySet<RcptClass> = new Set(['throttled', 'greylisted', 'blocked', 'temporary', 'rejected_unclassified']);

/** True when the reply proves nothing about the mailbox (neither accepted, nor missing, disabled or full). */
export function saysNothingAboutMailbox(judgement: RcptJudgement): boolean {
  return SILENT.has(judgement.class);
}

/** A refusal at MAIL FROM or at the banner is about the prober: blocked or temporary, never the mailbox. */
export function isPolicyReply(reply: SmtpReply): boolean {
  return (reply.enhanced !== null && /^[45]\.7\./.test(reply.enhanced)) || BLOCK_TEXT.test(reply.text) || reply.code === 554;
}
