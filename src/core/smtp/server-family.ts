/**
 * Which MTA a host runs, read from what it says of itself in its greeting (RFC 5321 §4.2: the
 * 220 line's text is free, and most MTAs put their name there by default), and what that tells
 * about its defences before any has been set off. Pure.
 *
 * Defaults that make each name worth reading:
 * - Postfix: `smtpd_banner = $myhostname ESMTP $mail_name`; its error limits count per session
 *   (smtpd_soft_error_limit, smtpd_hard_error_limit; smtpd.c `error_count`), no per-message delay.
 * - Exim: `smtp_banner = $smtp_active_hostname ESMTP Exim $version_number $tod_full`; ACL
 *   `delay` on unknown recipients is a common setup, counted per message ($rcpt_fail_count).
 * - Sendmail: "ESMTP Sendmail 8.x"; BadRcptThrottle counts per session; MAXHELOCOMMANDS 3.
 * - OpenSMTPD: "ESMTP OpenSMTPD"; no per-message recipient delay (smtpd.conf(5)).
 * - Haraka: "ESMTP Haraka/3.x ready"; its karma and limit plugins act per connection.
 * - Microsoft Exchange: "Microsoft ESMTP MAIL Service ready"; its tarpit holds each rejection
 *   (Set-ReceiveConnector -TarpitInterval), whatever the message — read from its timing.
 */
export type ServerFamily = 'postfix' | 'exim' | 'sendmail' | 'opensmtpd' | 'haraka' | 'exchange';

const NAMES: ReadonlyArray<[ServerFamily, RegExp]> = [
  ['postfix', /\bPostfix\b/i],
  ['exim', /\bExim\b/i],
  ['sendmail', /\bSendmail\b/i],
  ['opensmtpd', /\bOpenSMTPD\b/i],
  ['haraka', /\bHaraka\b/i],
  ['exchange', /\bMicrosoft ESMTP MAIL Service\b/i],
];

/** The MTA the greeting names, or null when it names none of these. */
export function serverFamilyOf(greeting: string): ServerFamily | null {
  for (const [family, name] of NAMES) if (name.test(greeting)) return family;
  return null;
}

/**
 * Whether the MTA caps recipients per message only (Postfix smtpd_recipient_limit, Exim
 * recipients_max, Sendmail MaxRecipientsPerMessage, OpenSMTPD, Exchange): no per-connection cap
 * to keep under. Haraka's limit plugin caps recipients per connection; unknown servers may.
 */
export function capsRecipientsPerMessage(family: ServerFamily | null): boolean {
  return family !== null && family !== 'haraka';
}

/**
 * Whether the MTA counts refused recipients per session only — no per-message delay to keep
 * under. Unknown servers and Exim are assumed to count per message until they show otherwise.
 */
export function countsErrorsPerSession(family: ServerFamily | null): boolean {
  return family !== null && family !== 'exim';
}

/**
 * Whether the MTA keeps no count of refused recipients per session. Exim counts them per message
 * (its ACLs see $rcpt_fail_count, which each message starts again at 0; its session limits
 * count protocol errors and non-mail commands, smtp_max_synprot_errors and
 * smtp_accept_max_nonmail). OpenSMTPD counts none (measured on 6.8: 120 refused recipients in
 * one session, each answered at once, no kick, nothing in its log).
 */
export function keepsNoSessionErrorCount(family: ServerFamily | null): boolean {
  return family === 'exim' || family === 'opensmtpd';
}

/**
 * Whether the MTA holds its 221: Exim's QUIT handler sets TCP_CORK on the socket before it writes
 * the reply (smtp_in.c, Linux builds), so the 221 leaves when the process closes the connection or
 * the kernel's 200 ms cork ceiling runs out — measured on Exim 4.96: 200 ms after QUIT, where its
 * other replies come at once. Other hosts show it by their timing (session.ts, SLOW_QUIT_MS).
 */
export function answersQuitLate(family: ServerFamily | null): boolean {
  return family === 'exim';
}
