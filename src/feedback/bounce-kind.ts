/**
 * Hard or soft: what a bounce says about the address. A bounce's remote reply is read through the
 * same reply table the engine reads RCPT replies with (src/core/replies/table.ts), so "no such
 * mailbox" means one thing everywhere; its enhanced status code (RFC 3463) decides when the reply
 * does not. A permanent failure that is about the message or the sender, not the address — a
 * policy or spam block (X.7.x), a full mailbox (X.2.2), a message too big (X.3.4, X.2.3), its
 * content (X.6.x) — is soft: it says nothing against mailing the address again. Any other
 * permanent failure (5.1.x bad mailbox or domain, 5.2.1 disabled, 5.4.4 unroutable, 5.0.0) is hard,
 * as the ESPs count "Permanent" bounces.
 */
import { classifyRcptReply } from '../core/replies/classify-by-table.js';
import { enhancedCodeOf, makeReply } from '../core/replies/parse.js';
import type { FeedbackKind } from './events.js';

export type BounceKind = Extract<FeedbackKind, 'hard_bounce' | 'soft_bounce'>;

const NOT_ABOUT_THE_ADDRESS = /^5\.(7\.\d+|2\.2|2\.3|3\.4|6\.\d+)$/;

/** The SMTP reply inside a diagnostic text (`smtp; 550 5.1.1 <a@b>: …`), or null. */
export function replyOf(diagnostic: string | null): { code: number; text: string } | null {
  if (!diagnostic) return null;
  const text = diagnostic.replace(/^\s*smtp\s*;\s*/i, '').replace(/\s+/g, ' ').trim();
  const m = /^([245]\d\d)[ -](.*)$/.exec(text);
  return m ? { code: Number(m[1]), text: m[2] ?? '' } : null;
}

/** The status code a bounce reports: the DSN's Status, else one in its diagnostic text, else the reply's class. */
export function statusOf(status: string | null, diagnostic: string | null): string | null {
  const given = status?.trim().match(/^[245]\.\d{1,3}\.\d{1,3}/)?.[0];
  if (given) return given;
  const reply = replyOf(diagnostic);
  if (!reply) return null;
  return enhancedCodeOf(reply.text) ?? `${reply.code}`;
}

/** Hard or soft, from the status code (`5.1.1`, or a bare reply code `550`) and the diagnostic text. */
export function bounceKind(status: string | null, diagnostic: string | null): BounceKind {
  const reply = replyOf(diagnostic);
  if (reply) {
    const judged = classifyRcptReply(makeReply(reply.code, [reply.text]));
    if (judged.class === 'no_mailbox' || judged.class === 'disabled') return 'hard_bounce';
    if (judged.class !== 'rejected_unclassified' && judged.class !== 'accepted') return 'soft_bounce';
  }
  const code = statusOf(status, diagnostic);
  if (code === null) return 'hard_bounce';
  if (code.startsWith('4')) return 'soft_bounce';
  if (/^5\d\d$/.test(code)) return 'hard_bounce';
  return NOT_ABOUT_THE_ADDRESS.test(code) ? 'soft_bounce' : 'hard_bounce';
}
