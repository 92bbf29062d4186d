/**
 * Declarative description of a simulated mail world: domains, their DNS answers and the
 * behaviour of their MX hosts. `startMailWorld(spec)` (src/mailworld/world.ts) turns it into a
 * real DNS server and real SMTP servers on 127.0.0.x.
 */
import type { PublicVerdict } from '../core/types.js';

/** What RCPT TO answers for one mailbox. */
export type MailboxBehaviour =
  | 'accept' // 250 2.1.5 OK
  | 'unknown' // 550 5.1.1 user unknown
  | 'disabled' // 550 5.2.1 mailbox disabled
  | 'full' // 452 4.2.2 over quota
  | 'full_permanent' // 552 5.2.2 mailbox full
  | 'greylist' // 450 4.7.1 greylisted until greylistMs has passed since first try, then accept
  | 'policy_block' // 554 5.7.1 Spamhaus-style block at RCPT
  | 'temp_fail' // 451 4.3.0 temporary local problem
  | 'no_reply'; // never answers this RCPT TO: the session hangs until the client gives up (a tarpitted catch-all probe)

/** How one MX host behaves at the connection level. Default: a well-behaved server. */
export type HostBehaviour =
  | { kind: 'normal' }
  | { kind: 'refuse' } // nothing listens: connection refused
  | { kind: 'tarpit' } // accepts TCP, never sends a banner
  | { kind: 'slow_banner'; delayMs: number }
  | { kind: 'trickle_banner'; bytesPerSecond: number }
  | { kind: 'drop_after'; command: 'EHLO' | 'MAIL' | 'RCPT' } // closes the socket on that command
  | { kind: 'block_on_connect'; reply?: string } // 554 5.7.1 ... at banner
  | { kind: 'endless_multiline' } // a 250- continuation that never ends
  | { kind: 'huge_reply'; bytes: number }
  | { kind: 'invalid_reply_codes' }
  | { kind: 'tls_fail' } // offers STARTTLS, then breaks the handshake
  | { kind: 'slow_rcpt_4xx'; delayMs: number }; // every RCPT: "451 4.7.1" after delayMs (just under a step timeout, it holds a prober longest)

/**
 * Defences real servers run against address harvesting and abuse, as a host can have them
 * (defences.ts implements them; docs/engine-sessions.md gives each default's source). Times are
 * configurable so tests stay fast; the real defaults are noted.
 */
export interface HostDefences {
  /**
   * Postfix smtpd error limits (postconf(5)): from `soft` errors in a session on, every reply
   * waits `sleepMs` (smtpd_soft_error_limit 10, smtpd_error_sleep_time 1 s); at `hard` errors
   * the next command gets "421 4.7.0 <host> Error: too many errors" and the session is closed
   * (smtpd_hard_error_limit 20; 1 in stress mode).
   */
  errorLimits?: { soft: number; hard: number; sleepMs: number };
  /** Postfix smtpd_junk_command_limit (100; 1 in stress mode): NOOP, VRFY, ETRN and RSET beyond it count as errors. */
  junkCommandLimit?: number;
  /** Postfix stress mode ("postfix/smtpd ... stress"): hard error limit 1 and junk command limit 1. */
  stress?: boolean;
  /** Postfix smtpd_client_connection_count_limit: more sessions at once from one client get "421 4.7.0 <host> Error: too many connections from <ip>". */
  connectionCountLimit?: number;
  /** Postfix smtpd_client_connection_rate_limit: more connections than `max` per `perMs` (anvil_rate_time_unit, 60 s) from one client get the same 421. */
  connectionRateLimit?: { max: number; perMs: number };
  /** Postfix smtpd_client_recipient_rate_limit: RCPTs beyond `max` per `perMs` get "450 4.7.1 Error: too many recipients from <ip>". */
  recipientRateLimit?: { max: number; perMs: number };
  /** Postfix smtpd_recipient_limit (1000): RCPTs beyond it in one transaction get "452 4.5.3 Error: too many recipients". */
  recipientLimit?: number;
  /** Microsoft Exchange tarpit: each "550 5.1.1" recipient reply is held back `delayMs` (TarpitInterval, 5 s). */
  tarpit?: { delayMs: number };
  /** Sendmail BadRcptThrottle: once a session has had `after` bad recipients, every further RCPT reply waits `sleepMs` (1 s, hard-coded in sendmail). */
  badRcptThrottle?: { after: number; sleepMs: number };
  /** Sendmail MAXHELOCOMMANDS (3, compiled in): from the `after`-th HELO/EHLO of a session on, each waits `sleepMs` (1 s), doubling each time. */
  greetingThrottle?: { after: number; sleepMs: number };
  /** Exim smtp_accept_max_nonmail (10): commands other than MAIL/RCPT/DATA/QUIT beyond it (one RSET or EHLO per message free) get "421 … too many nonmail commands" and the session is closed. */
  maxNonmail?: number;
  /** Exim ACL `delay` on unknown recipients (a common acl_smtp_rcpt rule): each rejection for an unknown user waits `delayMs`. */
  unknownRecipientDelayMs?: number;
  /** Exim recipients_max (50000 since 4.95): RCPTs beyond it in one message get "452 4.5.3 Too many recipients". */
  recipientsMax?: number;
  /** Any server: after `afterRcpts` RCPTs in a session, the next RCPT gets a 421 (or the connection is closed without a word), in the first `sessions` sessions. */
  dropMidGroup?: { afterRcpts: number; how: '421' | 'close'; sessions: number };
  /** Any server: after `afterRcpts` RCPTs in a session, every further RCPT gets `reply` (a 451/452 4.7.x "try again later"). */
  throttle?: { afterRcpts: number; reply: string };
  /** Any server: unsolicited lines — a `250` before the greeting, or an extra `250` after the MAIL reply when commands come pipelined. */
  unsolicited?: 'before_banner' | 'in_pipelined_group';
}

export interface MxHostSpec {
  /** Host name, e.g. `mx1.example.test`. */
  name: string;
  /** IPv4 address. Omitted: the world assigns a free 127.0.0.x. A non-loopback address
   * (10.x, 169.254.x, ...) or `::1` is only published in DNS; no server is started for it. */
  ip?: string;
  behaviour?: HostBehaviour;
  /** Banner and EHLO greeting name, used for provider-family detection tests. */
  greeting?: string;
  /** More concurrent sessions than this are answered `421 4.7.0 too many connections`. */
  maxConnections?: number;
  /** Latency added before every reply, including the banner (benchmarks). */
  commandLatencyMs?: number;
  /** Offer STARTTLS (self-signed certificate). Default false. */
  starttls?: boolean;
  /** Offer PIPELINING. Default true. */
  pipelining?: boolean;
  /** Offer SMTPUTF8. Default true. */
  smtputf8?: boolean;
  /** A webmail provider (Yahoo-like) that answers 250 to every RCPT whatever the mailbox:
   * truth for its domains is UNKNOWN_WEBMAIL. Default false. */
  webmailAcceptAll?: boolean;
  /** Anti-abuse defences of real servers. They change how fast a verifier may ask, never the truth. */
  defences?: HostDefences;
  /**
   * Client addresses this host turns away at the greeting, as a server whose blocklist lists
   * them does (`554 5.7.1 … Client host [ip] blocked using zen.spamhaus.org`): a listed egress
   * route. It says nothing about the mailboxes, so the truth does not change.
   */
  blockClients?: string[];
  /** A host with defences greets at once (as Postfix does); this delays its banner, e.g. 100 ms like smtp-server's early-talker pause. */
  greetDelayMs?: number;
}

export interface DomainSpec {
  name: string;
  /** DNS behaviour of the domain's names. Default 'normal'. */
  dns?: 'normal' | 'nxdomain' | 'servfail' | 'timeout';
  /** MX records: host names defined in WorldSpec.hosts (or any name with `a` records). */
  mx?: Array<{ host: string; preference: number }>;
  /** Publish a null MX (RFC 7505): `0 .` */
  nullMx?: boolean;
  /** A records for the domain name itself (implicit MX when there is no MX). */
  a?: string[];
  aaaa?: string[];
  /** The domain name is a CNAME to this name (chains and loops allowed). */
  cname?: string;
  /** TXT records of the domain name (e.g. its SPF record, `v=spf1 ip4:127.0.0.1 -all`). */
  txt?: string[];
  /** Local part (lower-cased) → behaviour. */
  mailboxes?: Record<string, MailboxBehaviour>;
  /** Behaviour for local parts not in `mailboxes`. Default 'unknown'; 'accept' makes a catch-all. */
  otherMailboxes?: MailboxBehaviour;
  /** How long greylisting lasts for a greylisted mailbox. Default 1000 ms. */
  greylistMs?: number;
}

export interface WorldSpec {
  hosts: MxHostSpec[];
  domains: DomainSpec[];
  /** Extra A/AAAA names (e.g. MX host names pointing at private ranges, CNAME targets). */
  names?: Array<{
    name: string;
    a?: string[];
    aaaa?: string[];
    cname?: string;
    /** PTR targets: give the reverse name (`1.0.0.127.in-addr.arpa`, see reverseName in doctor-world.ts). */
    ptr?: string[];
    /** TXT records (SPF records, a blocklist's reason text). */
    txt?: string[];
    dns?: DomainSpec['dns'];
  }>;
  /** Port every SMTP host listens on (all hosts share it, on different IPs). 0: pick a free one. */
  smtpPort?: number;
}

/** One SMTP session as the recorder saw it. */
export interface RecordedSession {
  host: string;
  ip: string;
  startedAt: number;
  endedAt: number | null;
  /** Commands in order with the reply code the world sent. */
  commands: Array<{ command: string; replyCode: number | null }>;
  /** The client's address: which egress route the session came by. */
  client?: string;
  /** Code of the greeting (220, 421 when over maxConnections, 554 when blocked); null if none was sent. */
  bannerCode?: number | null;
  /** Defences this session set off (defences.ts `LimitHit`), in order. */
  limitHits?: string[];
}

/** Truth for benchmarks and accuracy checks: what a correct verifier concludes. */
export type ExpectedVerdict = PublicVerdict;
