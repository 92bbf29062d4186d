/**
 * What one RCPT reply says about the mailbox. Pure and table-driven.
 *
 * Order matters: provider-specific texts first (they override generic reading), then policy
 * blocks — a 5.7.x code (RFC 3463 §3.8, "security or policy status") or a blocklist text is
 * about the *prober*, never proof that the mailbox is missing — then greylisting, quota and
 * the mailbox-status codes (RFC 3463 §3.2 X.1.x addressing, §3.3 X.2.x mailbox), and last
 * the usual texts of servers that send no enhanced code.
 */
import type { SmtpReply } from './smtp/reply.js';

export type RcptClass =
  | 'accepted'
  | 'no_mailbox'
  | 'disabled'
  | 'full'
  | 'greylisted'
  | 'blocked'
  | 'temporary'
  | 'rejected_unclassified';

export interface RcptJudgement {
  class: RcptClass;
  /** Whether an enhanced status code backed the judgement, or only the free text. */
  basis: 'code' | 'text';
  rule: string;
}

interface Rule {
  rule: string;
  class: RcptClass;
  basis: 'code' | 'text';
  when: (reply: SmtpReply) => boolean;
}

const text = (pattern: RegExp) => (reply: SmtpReply) => pattern.test(reply.text);
const enhanced = (pattern: RegExp) => (reply: SmtpReply) => reply.enhanced !== null && pattern.test(reply.enhanced);
const temp = (reply: SmtpReply): boolean => reply.code >= 400 && reply.code < 500;
const perm = (reply: SmtpReply): boolean => reply.code >= 500;

const BLOCK_TEXT =
  /spamhaus|spamcop|sorbs|barracudacentral|\bblock(?:ed|list|listed)?\b|black ?list|deny ?list|\blisted (?:in|on|at|by)\b|\b(?:is|are|was|been) listed\b|\bRBL\b|DNSBL|reputation|policy (?:rejection|violation|reasons)|rejected (?:due to|by) policy|relay(?:ing)? (?:access )?(?:denied|not permitted|prohibited)|not permitted to relay|access denied|\bbanned\b|client host \S* ?rejected|ipcheck\.proofpoint|senderscore|spam (?:detected|blocked|filter)|reverse dns|PTR record/i;
const GREYLIST_TEXT =
  /gr[ae]y-?list|try (?:again )?later|retry (?:again )?later|please (?:try|retry) again|temporarily (?:deferred|rejected|blocked)|deferred|come back later|not yet authori[sz]ed|postgrey/i;
const QUOTA_TEXT = /quota|mailbox (?:is )?full|over ?(?:the )?limit|insufficient (?:storage|space)|storage (?:full|limit)|exceeded (?:its|the) storage/i;
const DISABLED_TEXT = /disabled|deactivated|inactive|suspended|account (?:has been )?(?:closed|expired|locked)|no longer (?:active|available|in use)/i;
const NO_MAILBOX_TEXT =
  /user unknown|unknown user|no such (?:user|mailbox|recipient|address|account)|does ?n[o']t exist|not exist|mailbox (?:unavailable|not found|does not exist)|mailbox is unavailable|recipient (?:address )?rejected|recipient not found|invalid (?:recipient|mailbox|address|user)|unrouteable address|unroutable address|unknown (?:recipient|mailbox|address|local[- ]part)|user not found|address (?:not found|unknown|rejected)|no mailbox|not a valid (?:mailbox|recipient|user)|account (?:does not|doesn't) exist|doesn't have an? \S+ account|undeliverable address|unknown or illegal alias|no such person|user doesn't exist|bad recipient/i;

export const RCPT_RULES: readonly Rule[] = [
  { rule: '2xx accepted', class: 'accepted', basis: 'code', when: (r) => r.code >= 200 && r.code < 300 },
  // Microsoft 365 Directory-Based Edge Blocking: "550 5.4.1 Recipient address rejected:
  // Access denied. AS(201806281)" is its answer for a recipient missing from the directory.
  { rule: 'microsoft dbeb', class: 'no_mailbox', basis: 'text', when: text(/AS\(201806281\)/) },
  // Yahoo: "554 delivery error: dd This user doesn't have a yahoo.com account".
  { rule: 'yahoo dd disabled', class: 'disabled', basis: 'text', when: text(/\bdd\b.*(?:disabled|inactive)/i) },
  { rule: 'yahoo dd no account', class: 'no_mailbox', basis: 'text', when: text(/\bdd\b.*(?:doesn't have|not found|no such)/i) },
  // Gmail: "450-4.2.1 The user you are trying to contact is receiving mail at a rate ...".
  { rule: 'gmail rate limit', class: 'greylisted', basis: 'code', when: (r) => temp(r) && (r.enhanced === '4.2.1' || /receiving mail at a rate/i.test(r.text)) },
  { rule: 'greylisting text', class: 'greylisted', basis: 'text', when: (r) => temp(r) && GREYLIST_TEXT.test(r.text) && !BLOCK_TEXT.test(r.text) },
  { rule: 'policy code x.7.x', class: 'blocked', basis: 'code', when: enhanced(/^[45]\.7\.\d+$/) },
  { rule: 'blocklist text', class: 'blocked', basis: 'text', when: text(BLOCK_TEXT) },
  { rule: 'quota code', class: 'full', basis: 'code', when: enhanced(/^[45]\.2\.2$/) },
  { rule: 'quota text', class: 'full', basis: 'text', when: (r) => (r.code === 452 || r.code === 552 || perm(r)) && QUOTA_TEXT.test(r.text) },
  { rule: 'temporary', class: 'temporary', basis: 'code', when: temp },
  { rule: 'disabled code 5.2.1', class: 'disabled', basis: 'code', when: enhanced(/^5\.2\.1$/) },
  { rule: 'no mailbox code 5.1.x', class: 'no_mailbox', basis: 'code', when: enhanced(/^5\.1\.(?:0|1|3|6|10)$/) },
  { rule: 'disabled text', class: 'disabled', basis: 'text', when: (r) => perm(r) && DISABLED_TEXT.test(r.text) },
  { rule: 'no mailbox text', class: 'no_mailbox', basis: 'text', when: (r) => perm(r) && NO_MAILBOX_TEXT.test(r.text) },
];

// One judgement per rule, shared by every reply the rule matches.
const JUDGEMENTS: ReadonlyMap<Rule, RcptJudgement> = new Map(
  RCPT_RULES.map((rule) => [rule, Object.freeze({ class: rule.class, basis: rule.basis, rule: rule.rule })]),
);
const UNCLASSIFIED: RcptJudgement = Object.freeze({ class: 'rejected_unclassified', basis: 'code', rule: 'unclassified 5xx' });

// A reply is judged more than once on its way to a verdict (accepted? then the verdict),
// usually straight after: the last reply judged is remembered (a refusal runs every regex).
let lastReply: SmtpReply | null = null;
let lastJudgement: RcptJudgement = UNCLASSIFIED;

export function classifyRcptReply(reply: SmtpReply): RcptJudgement {
  if (reply === lastReply) return lastJudgement;
  let judgement = UNCLASSIFIED;
  for (const rule of RCPT_RULES) {
    if (rule.when(reply)) {
      judgement = JUDGEMENTS.get(rule) ?? UNCLASSIFIED;
      break;
    }
  }
  lastReply = reply;
  lastJudgement = judgement;
  return judgement;
}

/** A refusal at MAIL FROM or at the banner is about the prober: blocked or temporary, never the mailbox. */
export function isPolicyReply(reply: SmtpReply): boolean {
  return (reply.enhanced !== null && /^[45]\.7\./.test(reply.enhanced)) || BLOCK_TEXT.test(reply.text) || reply.code === 554;
}
