/**
 * What a session's greeting teaches about its MX host before anything is sent: the MTA its
 * banner names (server-family.ts) and whether the greeting itself was held. Kept in the host's
 * profile (host-profile.ts), as transaction-lessons.ts does for what a transaction shows.
 */
import type { HostLearning } from './host-profile.js';
import { answersQuitLate, capsRecipientsPerMessage, keepsNoSessionErrorCount, countsErrorsPerSession, serverFamilyOf } from './server-family.js';
import { sessionCeiling } from './session-count.js';
import type { ProbeSession } from './session.js';

export function learnFromGreeting(learning: HostLearning, host: string, session: Pick<ProbeSession, 'greeting' | 'greetedSlowly'>): void {
  const family = serverFamilyOf(session.greeting.text);
  // Sendmail (MAXHELOCOMMANDS 3) sleeps from the third greeting of a session.
  let changed = family === 'sendmail' && learning.greetingsLimited(host, 2);
  if (countsErrorsPerSession(family)) changed = learning.transactionErrorsLifted(host) || changed;
  if (keepsNoSessionErrorCount(family)) changed = learning.noSessionErrorCount(host) || changed;
  if (answersQuitLate(family)) changed = learning.quitSlow(host) || changed;
  if (capsRecipientsPerMessage(family)) changed = learning.sessionRcptsLifted(host) || changed;
  changed = learning.sessionCeilingKnown(host, sessionCeiling(family)) || changed;
  // The greeting itself held (EHLO answered far later than the path's round trip): every reply will be.
  if (session.greetedSlowly) changed = learning.everyReplySlow(host) || changed;
  if (changed) void learning.save(host);
}
