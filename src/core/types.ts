import type { Evidence } from './evidence/evidence.js';

/**
 * The pre-send contract (docs/interface-spec.md §2, docs/design.md §4–§5) as TypeScript types.
 * Shared by the engine, the service, the client and the MCP server, so every layer
 * speaks the same words. The JSON schemas in src/api/schemas.ts mirror these types.
 */

export const PUBLIC_VERDICTS = [
  'DELIVERABLE',
  'UNDELIVERABLE_NO_MAILBOX',
  'UNDELIVERABLE_NO_MAIL_SERVER',
  'UNDELIVERABLE_BOUNCED',
  'CATCH_ALL',
  'MAILBOX_FULL',
  'DISPOSABLE',
  'ROLE',
  'SPAMTRAP',
  'RISKY_SPAMTRAP',
  'BLACKLISTED',
  'GREYLISTED',
  'TRANSIENT',
  'UNKNOWN',
  'UNKNOWN_WEBMAIL',
] as const;
export type PublicVerdict = (typeof PUBLIC_VERDICTS)[number];

export const PRESEND_DECISIONS = [
  'send',
  'suppress',
  'send_with_caution',
  'enrich_first',
  'recheck_later',
  'manual_review',
  'do_not_decide',
] as const;
export type PreSendDecision = (typeof PRESEND_DECISIONS)[number];

export const ENVELOPE_STATUSES = ['completed', 'running', 'recheck_scheduled', 'failed', 'rejected'] as const;
export type EnvelopeStatus = (typeof ENVELOPE_STATUSES)[number];

export const OUTCOMES = ['actionable_verdict', 'pending', 'non_verdict'] as const;
export type Outcome = (typeof OUTCOMES)[number];

export const BILLING_DISPOSITIONS = ['debited', 'held', 'released'] as const;
export type BillingDisposition = (typeof BILLING_DISPOSITIONS)[number];

export const EVIDENCE_CLASSES = [
  'smtp_rcpt',
  'smtp_catch_all_probe',
  'dns',
  'syntax',
  'domain_list',
  'sandbox',
  'cache',
  // From the account's own feedback (docs/feedback.md): a hard bounce, a delivery.
  'bounce_history',
  'delivery_history',
] as const;
export type EvidenceClass = (typeof EVIDENCE_CLASSES)[number];

export const PROVIDER_FAMILIES = [
  'google',
  'microsoft',
  'yahoo',
  'apple',
  'zoho',
  'proton',
  'fastmail',
  'mimecast',
  'proofpoint',
  'barracuda',
  'other',
] as const;
export type ProviderFamily = (typeof PROVIDER_FAMILIES)[number];

/** snake_case reason codes (docs/design.md §4). Kept as a closed list so a typo is a type error. */
export const REASON_CODES = [
  'smtp_rcpt_accepted',
  'mailbox_not_found',
  'catch_all_domain',
  'null_mx',
  'no_mx_no_a',
  'nxdomain',
  'disposable_domain',
  'role_account',
  'free_provider',
  'possible_typo',
  'mailbox_full',
  'mailbox_disabled',
  'greylisted',
  'probe_blocked',
  'smtp_timeout',
  'smtp_protocol_error',
  'dns_timeout',
  'dns_servfail',
  'connection_refused',
  'connection_dropped',
  'invalid_syntax',
  'private_mx_refused',
  'spamtrap',
  'spamtrap_pattern',
  'blacklisted_domain',
  'hard_bounced',
  'webmail_accepts_all',
  'temporary_failure',
  'sandbox',
  // Added by the engine (additive): finer non-verdict causes.
  'domain_literal',
  'cname_loop',
  'dns_error',
  'mx_unresolvable',
  'smtputf8_not_supported',
  'probe_not_configured',
  'tls_failure',
  'proxy_failure',
  'rcpt_rejected_unclassified',
  'aborted',
  'throttled',
  // Every egress route the provider may be probed by is refused by it for now (PRESEND_EGRESS pool).
  'egress_paused',
  // Added by the service when an account's decision policy set the decision (docs/policy.md).
  'policy_rule',
  'policy_confidence_threshold',
  // From the account's own feedback (docs/feedback.md).
  'delivered_recently',
  'complained',
  // The MX host kept throttling us past PRESEND_HOST_THROTTLE_BOUND_MS: the address was not asked (recheck_scheduled).
  'host_throttled',
] as const;
export type ReasonCode = (typeof REASON_CODES)[number];

export interface RetryWindow {
  eligible_at: string;
  expires_at: string;
  affinity_required: boolean;
}

export interface Billing {
  disposition: BillingDisposition;
  credits: number;
}

/** Where and when one kind of feedback was last seen (docs/feedback.md). */
export interface FeedbackSighting {
  at: string;
  /** `csv`, `dsn`, `ses`, `sendgrid`, `postmark`, `mailgun`. */
  source: string;
}

/**
 * What the account's own mail taught about an address (docs/feedback.md): the last hard bounce
 * (with its status or reply code), soft bounces and complaints counted, the last delivery.
 */
export interface AddressFeedback {
  lastHardBounce: (FeedbackSighting & { code: string | null }) | null;
  softBounces: (FeedbackSighting & { count: number }) | null;
  lastDelivery: FeedbackSighting | null;
  complaints: (FeedbackSighting & { count: number }) | null;
}

/**
 * The envelope's `history` (docs/api-contract.md): this account's earlier checks of the address
 * (checks 0 and null dates when it was never checked) and its feedback.
 */
export interface AddressHistory extends AddressFeedback {
  checks: number;
  firstCheckedAt: string | null;
  lastCheckedAt: string | null;
  lastVerdict: PublicVerdict | null;
}

/** ClientDecisionEnvelopeV1 — the `presend` field. No extra fields, all required. */
export interface PresendEnvelope {
  contract_version: 1;
  status: EnvelopeStatus;
  outcome: Outcome;
  decision: PreSendDecision | null;
  verdict: PublicVerdict | null;
  provider_family: ProviderFamily | null;
  confidence: number | null;
  reasons: ReasonCode[];
  evidence_class: EvidenceClass | null;
  retry: RetryWindow | null;
  billing: Billing;
  history: AddressHistory | null;
}

/** The legacy sibling `decision` object (docs/design.md §4). */
export interface LegacyDecision {
  result: 'deliverable' | 'undeliverable' | 'risky' | 'unknown';
  reason: string;
  didYouMean: string | null;
}

/**
 * What the engine returns for one address: the envelope plus the facts the service
 * needs for metadata, legacy fields and billing. Never thrown; always data.
 */
export interface EngineResult {
  /** The address as normalised by the syntax step (domain lower-cased, IDNA). Null if unparseable. */
  email: string;
  input: string;
  envelope: PresendEnvelope;
  legacy: LegacyDecision;
  /** 0–100 deliverability likelihood, null for non-verdicts. */
  score: number | null;
  verifiedAt: string;
  attempts: number;
  /** Which provider family string goes into EngineMetadata (never null there: 'none' when no MX). */
  providerFamily: string;
  /** Suggested correction when a typo is suspected. */
  didYouMean: string | null;
  /** MX host that answered, when an SMTP probe was made (for affinity/diagnostics). */
  mxHost: string | null;
  /** How the verdict was reached (docs/evidence.md); only when asked (VerifyOptions.explain). Never part of the API's envelope. */
  evidence?: Evidence;
}
