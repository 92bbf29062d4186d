/**
 * What a check keeps to explain itself (docs/evidence.md): the MX hosts it could use, how its DNS
 * answers were had (asked now, or from the facts cache and how old), the SMTP conversation as
 * this address saw it (the session's shared lines — banner, EHLO, STARTTLS, MAIL — and its own
 * RCPT), the domain's catch-all probe, and the reply-table row that decided. Plain JSON: the
 * service stores it beside the result, the dashboard and `presend check --explain` show it.
 *
 * Never kept: anything of the caller's API key (the engine never sees it), proxy or AUTH
 * credentials (the transcript records commands as written to the server, and the prober never
 * sends AUTH; a proxy is named by host only). MAIL FROM is ours and is shown.
 */
import type { RcptClass } from '../replies/table.js';

/** Bounds per check: a hostile server's long replies or a session of thousands of groups cannot grow one. */
export const EVIDENCE_LIMITS = {
  /** Transcript lines kept per check; later ones are counted in `dropped`. */
  maxLines: 60,
  /** Characters of one line's text. */
  maxLineChars: 240,
  /** Characters of all transcript texts together. */
  maxChars: 8_000,
  /** Notes (failovers, skipped hosts, cache hits) per check. */
  maxNotes: 20,
} as const;

export interface EvidenceMxHost {
  name: string;
  preference: number;
  /** The address a session reached it at, when one did for this check. */
  address?: string;
}

/** A DNS fact the check used: looked up for it (how long it took) or read from the facts cache (how old). */
export interface EvidenceFact {
  /** `mx:example.com`, `host:mx1.example.com`, `catchall:example.com`. */
  key: string;
  source: 'lookup' | 'cache';
  /** How long the lookup took; null when read from the cache. */
  tookMs: number | null;
  /** Age of a cached fact when it was read; null when looked up now or when its age is unknown. */
  ageMs: number | null;
  /** What it said, in a word or a few (`2 MX hosts`, `nxdomain`, `10.0.0.5`). */
  summary: string;
}

/** One line of the conversation: `C` what we sent, `S` what the server replied, `-` what happened on the way (connect, TLS, a drop). */
export interface EvidenceLine {
  /** Milliseconds since the check started (negative: the shared session opened before this check did). */
  atMs: number;
  dir: 'C' | 'S' | '-';
  /** The MX host of the session. */
  host: string;
  text: string;
  /** For a reply: milliseconds since its command (or its group) was sent. */
  tookMs?: number;
}

export interface EvidenceCatchAll {
  /** The made-up address the domain was asked about; null when its answer came from the cache without it. */
  address: string | null;
  reply: { code: number; text: string } | null;
  rule: string | null;
  result: 'accepts_any_address' | 'rejects_unknown_addresses' | 'could_not_tell';
  /** `none`: no probe answered for the domain (a provider that accepts every recipient is not probed). */
  source: 'probe' | 'cache' | 'none';
  ageMs: number | null;
}

/** The reply-table row (src/core/replies/table.ts) that read the deciding reply. */
export interface EvidenceRule {
  id: string;
  class: RcptClass;
  source: string;
}

export interface Evidence {
  version: 1;
  startedAt: string;
  finishedAt: string;
  durationMs: number;
  /** The address as asked at RCPT (normalised). */
  email: string;
  /** MX hosts in preference order (the implicit MX when the domain has none); null when DNS was not reached. */
  mxHosts: EvidenceMxHost[] | null;
  facts: EvidenceFact[];
  transcript: EvidenceLine[];
  /** Lines left out past EVIDENCE_LIMITS. */
  dropped: number;
  catchAll: EvidenceCatchAll | null;
  /** The reply that decided and the row that read it; null when no SMTP reply decided. */
  decidedBy: { step: 'rcpt' | 'mail'; host: string | null; reply: { code: number; text: string }; rule: EvidenceRule | null } | null;
  /** What ended the probe when no reply did: a failure, a refusal of a private MX, … */
  outcome: string;
  /** Failovers, skipped hosts, asked-again: one sentence each. */
  notes: string[];
  /**
   * Set by the service (src/service/evidence), not the engine: the account's decision policy rule
   * that changed the recommendation (src/service/policy), when one did.
   */
  policy?: { reason: 'policy_rule' | 'policy_confidence_threshold'; from: string | null; to: string | null } | null;
  /** Set by the service: the account's own send feedback decided or changed the result (docs/feedback.md). */
  feedback?: string | null;
}
