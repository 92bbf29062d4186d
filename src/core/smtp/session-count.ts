/**
 * How many sessions at once one MX host gets: sized to the path, under the connection limit the
 * host is known to keep, capped by the operator's politeness setting (PRESEND_MAX_SESSIONS_PER_MX)
 * and by what the host taught (one fewer for each "421 too many connections" another of our
 * sessions explains, host-queue.ts). Pure.
 *
 * Why the path: a session spends its time waiting for round trips. On a near path two sessions
 * keep a host busy; on a far one (80 ms) each round trip costs as much as many replies on
 * loopback, and only more sessions at once make a far host as fast as a near one. The same
 * holds for a host that holds every reply (a penalised client): its delay is the path.
 */
import type { ServerFamily } from './server-family.js';

/** Sessions at once at a host whose limit is not known: under Haraka's limit plugin as admins set it (3 per client). */
export const FIRST_CONTACT_SESSIONS = 3;
/** The ceiling of an MTA that keeps no per-client connection limit: as high as the politeness cap may go. */
export const NO_CLIENT_LIMIT_CEILING = 100;
/** Sessions on a near path (loopback, a LAN): two keep a host busy. */
const NEAR_PATH_SESSIONS = 2;
/** One more session for each this many milliseconds of round trip. */
const MS_PER_EXTRA_SESSION = 10;

/**
 * Sessions at once the MTA's stock per-client limit leaves room for, with a margin (a session
 * we have sent QUIT on still counts at the server for a moment): Postfix
 * smtpd_client_connection_count_limit 50 (postconf(5)); Exchange MaxInboundConnectionPerSource
 * 20 (Set-ReceiveConnector); Exim smtp_accept_max 20 in all, where admins commonly set
 * smtp_accept_max_per_host 10; OpenSMTPD none; the others and unnamed servers the first-contact count.
 */
export function sessionCeiling(family: ServerFamily | null): number {
  switch (family) {
    case 'postfix':
      return 40;
    case 'exchange':
    case 'exim':
      return 8;
    case 'opensmtpd':
      // No per-client connection limit at all (smtpd.conf(5) of 6.8 has only `smtp limit
      // max-mails` 100 per session and `max-rcpt` 1000 per message): the politeness cap
      // (PRESEND_MAX_SESSIONS_PER_MX, at most 100) alone decides. It offers no PIPELINING, so
      // every RCPT costs a round trip and sessions at once are its only speed lever.
      return NO_CLIENT_LIMIT_CEILING;
    default:
      return FIRST_CONTACT_SESSIONS;
  }
}

/**
 * Sessions worth having at once: two on a near path, one more per 10 ms of round trip, the
 * whole `allowed` at a host that holds every reply; never more than `allowed`.
 */
export function sessionsForPath(pathMs: number, slowEveryReply: boolean, allowed: number): number {
  const wanted = slowEveryReply ? allowed : NEAR_PATH_SESSIONS + Math.floor(Math.max(0, pathMs) / MS_PER_EXTRA_SESSION);
  return Math.max(1, Math.min(allowed, wanted));
}

/** A path this long (round trip, ms) leaves a QUIT on its way while the next session connects. */
export const FAR_PATH_MS = 5;

/** Our sessions of one host, as the queue counts them. */
export interface SessionCounts {
  /** Started and not yet over for us (opening, serving or waiting for work). */
  open: number;
  /** Running a group right now. */
  busy: number;
  /** QUIT sent, 221 awaited: over for us, still open at the server. */
  quitting: number;
  /** At most this many at once: the politeness cap and what the host taught, lowered while it is busier than us. */
  target: number;
}

/** Sessions at once this host allows as known: the target, under the limit its MTA keeps (at least one). */
export function allowedSessions(counts: SessionCounts, ceiling: number): number {
  return Math.max(1, Math.min(counts.target, ceiling));
}

/**
 * Whether one more session stays within what the host allows as the host counts: a session we
 * sent QUIT on is over for us (its slot is free at once) but open at the server until it has
 * read the QUIT — a round trip later on a far path. On a near path the server has read the QUIT
 * before our next connection reaches it — unless it holds every reply (a penalised client: the
 * QUIT waits its turn like the rest).
 */
export function serverHasRoom(counts: SessionCounts, allowed: number, pathMs: number | null, slowEveryReply: boolean): boolean {
  const lingering = (pathMs ?? 0) >= FAR_PATH_MS || slowEveryReply ? counts.quitting : 0;
  return counts.open + lingering < allowed;
}

/**
 * How many sessions to start now for `waiting` recipients (one per `perSession` of them at
 * least): up to what the path makes worth having (`wanted`), while the server has room as it
 * counts. Asked again whenever that may have grown — a recipient queued, a session over, and a
 * session opened: the first session of a host measures its path and reads its MTA from the
 * greeting (80 ms and Exim: 8 sessions where 2 were started blind), and waiting for the first
 * session to end before using that would leave the host at two sessions for its whole first round.
 */
export function sessionsToStart(counts: SessionCounts, waiting: number, perSession: number, wanted: number, allowed: number, pathMs: number | null, slowEveryReply: boolean): number {
  const most = Math.min(wanted, Math.ceil(waiting / Math.max(1, perSession)));
  let start = 0;
  while (counts.open + start < most && serverHasRoom({ ...counts, open: counts.open + start }, allowed, pathMs, slowEveryReply)) start++;
  return start;
}

/** The host is busier than our sessions: one fewer at once than were open (or allowed) when it said so. */
export function fewerSessions(counts: SessionCounts, allowed: number): number {
  return Math.max(1, Math.min(allowed, counts.open) - 1);
}
