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
/** Sessions on a near path (loopback, a LAN): two keep a host busy. */
const NEAR_PATH_SESSIONS = 2;
/** One more session for each this many milliseconds of round trip. */
const MS_PER_EXTRA_SESSION = 10;

/**
 * Sessions at once the MTA's stock per-client limit leaves room for, with a margin (a session
 * we have sent QUIT on still counts at the server for a moment): Postfix
 * smtpd_client_connection_count_limit 50 (postconf(5)); Exchange MaxInboundConnectionPerSource
 * 20 (Set-ReceiveConnector); Exim smtp_accept_max 20 in all, where admins commonly set
 * smtp_accept_max_per_host 10; the others and unnamed servers the first-contact count.
 */
export function sessionCeiling(family: ServerFamily | null): number {
  switch (family) {
    case 'postfix':
      return 40;
    case 'exchange':
    case 'exim':
      return 8;
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
