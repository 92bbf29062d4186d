/**
 * What the path to one MX host is like, as measured by the sessions opened there: its round trip,
 * what opening a session costs in round trips, and whether STARTTLS works. Read by the session
 * count (session-count.ts) and the group sizes (group-plan.ts). The measuring is pure.
 */

export interface HostLink {
  /** A TLS handshake failed here once: later sessions stay in plaintext (RFC 3207, opportunistic TLS). */
  tlsBroken: boolean;
  /** What opening a session costs here, in round trips (connect, greeting, EHLO, TLS): smoothed. */
  setupRounds: number;
  /** The path's round trip (the EHLO's, or the connect's where the EHLO was held), smoothed; null until a session was opened. */
  pathMs: number | null;
}

/** What one opened session shows of the path. */
export interface OpeningTimes {
  /** From the start of the connect to a session ready for its first group. */
  elapsedMs: number;
  connectMs: number;
  /** The EHLO's round trip. */
  roundTripMs: number;
  /** The greeting was held far past the path's round trip (a penalised client). */
  greetedSlowly: boolean;
}

/** Before any session: a connect, a greeting and an EHLO. */
export function unmeasuredLink(): HostLink {
  return { tlsBroken: false, setupRounds: 3, pathMs: null };
}

/** Each new sample weighs 30 %: one odd session moves the figures, a few settle them. */
const smooth = (previous: number, sample: number): number => 0.7 * previous + 0.3 * sample;

/** The link after one more opened session: both figures smoothed towards what it showed. */
export function measuredLink(link: HostLink, opening: OpeningTimes): HostLink {
  const rounds = opening.elapsedMs / Math.max(0.1, opening.roundTripMs);
  // The path's round trip: the EHLO's (a relay or proxy answers the TCP connect itself), or
  // the connect's where the EHLO was held (a penalised client: that delay is not the path).
  const path = opening.greetedSlowly ? opening.connectMs : Math.max(opening.connectMs, opening.roundTripMs);
  return {
    tlsBroken: link.tlsBroken,
    setupRounds: smooth(link.setupRounds, Math.min(rounds, 100)),
    pathMs: link.pathMs === null ? path : smooth(link.pathMs, path),
  };
}
