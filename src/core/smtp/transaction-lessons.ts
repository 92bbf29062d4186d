/**
 * What one transaction teaches about its MX host (docs/engine-sessions.md, "Learning"): the
 * refusal share, and each defence the replies showed — an error limit, a tarpit, a penalised
 * client whose every reply is slow, a greeting or command count, replies out of step. Kept in
 * the host's profile (host-profile.ts) for the next groups, sessions and batches.
 */
import type { HostLearning } from './host-profile.js';
import type { ProbeSession, TransactionResult } from './session.js';

/** A 421 naming commands (Exim smtp_accept_max_nonmail, Postfix junk limit) limits transactions, not errors. */
const COMMAND_LIMIT = /nonmail|non-mail|too many (?:commands|junk|unrecognized)/i;
/** A 421 naming errors (Postfix "Error: too many errors", Exim "too many syntax or protocol errors") is an error limit. */
const ERROR_LIMIT = /\berrors\b/i;

/**
 * Records what `result` shows about `host` (its recipients in order, `urgent[i]` for the
 * catch-all probes, which are sure refusals and not counted in the share). True when the host
 * closed with a 421 that names no limit: it asks for time (a back-off, fewer sessions).
 */
export function learnFromTransaction(learning: HostLearning, host: string, session: ProbeSession, result: TransactionResult, urgent: readonly boolean[]): boolean {
  const profile = learning.profile(host);
  let asked = 0;
  let refused = 0;
  // Refusals per message of the group (it may carry several transactions).
  const refusedPerMessage = result.mails.map(() => 0);
  urgent.forEach((isProbe, i) => {
    const reply = result.rcpt[i];
    if (!reply) return;
    const t = result.transactionOf[i] ?? 0;
    if (reply.code >= 400) refusedPerMessage[t] = (refusedPerMessage[t] ?? 0) + 1;
    if (isProbe) return;
    asked++;
    if (reply.code >= 400) refused++;
  });
  learning.record(host, asked, refused);
  let changed = false;
  const cap = profile.transactionErrors;
  if (cap !== null && Math.max(0, ...refusedPerMessage) > cap && result.verified && result.slowRejections === 0 && result.slowdownAfter === null) {
    // More refusals in one message than the first-contact cap, none held back: no per-message delay here.
    changed = learning.transactionErrorsLifted(host);
  }
  const failure = result.failure;
  // QUIT answered late (Exim corks its 221): groups that end a session end with EHLO from now on.
  if (result.slowQuit) changed = learning.quitSlow(host) || changed;
  if (result.slowEhlo) {
    // A late answer to a repeated greeting: the host counts them (Sendmail); stay below this one.
    changed = learning.greetingsLimited(host, session.greetings - 1) || changed;
  }
  if (result.desync) {
    changed = !profile.strict || changed;
    profile.strict = true;
  } else if (result.slowdownAfter !== null) {
    // Every reply slowed once the session had made N errors: the host's limit is N — or, from
    // the first error or two, a penalised client whose every reply will be slow (host-profile.ts).
    changed = learning.slowdownSeen(host, result.slowdownAfter) || changed;
  } else if (result.slowRejections >= 2) {
    // Rejections held back one by one (two of them: one could be a stall of this process).
    changed = learning.tarpitSeen(host) || changed;
  }
  const closing = failure?.reply?.code === 421 ? failure.reply : null;
  let asksForTime = false;
  if (result.closedAfterGreeting) {
    // Closed right after a repeated greeting (Postfix counts EHLO as a junk command): fewer greetings per session.
    changed = learning.greetingsLimited(host, Math.max(1, session.greetings - 1)) || changed;
  } else if (closing && COMMAND_LIMIT.test(closing.text)) {
    // The host counts commands (RSET, NOOP…): fewer transactions per session.
    const most = Math.max(1, session.transactionsDone - 1);
    if (most < profile.transactions) {
      profile.transactions = most;
      changed = true;
    }
  } else if (session.errors > 0 && ((closing && ERROR_LIMIT.test(closing.text)) || (failure?.kind === 'dropped' && !result.desync))) {
    // Closed for errors (or cut without a word) after N errors: that is the host's error limit.
    changed = learning.limitSeen(host, session.errors) || changed;
  } else if (closing) {
    asksForTime = true;
  }
  if (changed) void learning.save(host);
  return asksForTime;
}
