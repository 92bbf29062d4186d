/**
 * What the account's own feedback (docs/feedback.md) does to a check. Pure: the service reads the
 * address's feedback from the store and hands it in as data, so the engine stays free of storage.
 *
 * - A hard bounce inside the account's window, with no delivery after it, answers
 *   UNDELIVERABLE_BOUNCED (`suppress`, evidence `bounce_history`) before any probe.
 * - A delivery inside the window at a catch-all domain turns CATCH_ALL into DELIVERABLE with
 *   evidence `delivery_history`: the probe could not tell the mailbox from a typo, the sender's
 *   own accepted-and-not-bounced message can (the verdict list's DELIVERABLE is "mail to this
 *   address is delivered"; CATCH_ALL is "the domain would accept any name").
 * - A complaint (the recipient marked the mail as spam, RFC 5965 feedback or the ESP's event)
 *   makes the decision `suppress` whatever the verdict, with reason `complained`: the mailbox may
 *   well exist, but its owner asked not to get mail.
 */
import type { Classification } from './classify-finding.js';
import { buildResult } from './envelope.js';
import { traitsOf } from './address-facts.js';
import { parseAddress } from './syntax/address.js';
import type { AddressFeedback, AddressHistory, EngineResult } from './types.js';

export const DEFAULT_FEEDBACK_WINDOW_DAYS = 180;

export interface FeedbackPolicy {
  now: Date;
  /** How far back a hard bounce or a delivery counts (the account's setting). */
  windowDays: number;
}

const DAY_MS = 86_400_000;

function withinWindow(at: string, policy: FeedbackPolicy): boolean {
  return Date.parse(at) >= policy.now.getTime() - policy.windowDays * DAY_MS;
}

/** A hard bounce that still counts: inside the window, and no delivery seen since. */
export function countingHardBounce(feedback: AddressFeedback | null, policy: FeedbackPolicy): AddressFeedback['lastHardBounce'] {
  const bounce = feedback?.lastHardBounce ?? null;
  if (!bounce || !withinWindow(bounce.at, policy)) return null;
  const delivered = feedback?.lastDelivery;
  if (delivered && Date.parse(delivered.at) > Date.parse(bounce.at)) return null;
  return bounce;
}

/** A delivery that still counts: inside the window, and no hard bounce since. */
function countingDelivery(feedback: AddressFeedback | null, policy: FeedbackPolicy): AddressFeedback['lastDelivery'] {
  const delivery = feedback?.lastDelivery ?? null;
  if (!delivery || !withinWindow(delivery.at, policy)) return null;
  const bounced = feedback?.lastHardBounce;
  if (bounced && Date.parse(bounced.at) >= Date.parse(delivery.at)) return null;
  return delivery;
}

const BOUNCED: Classification = { verdict: 'UNDELIVERABLE_BOUNCED', reasons: ['hard_bounced'], confidence: 0.99, evidence: 'bounce_history' };

/** The answer feedback gives without a probe (a counting hard bounce), or null: the address is probed. */
export function answerFromFeedback(email: string, feedback: AddressFeedback | null, policy: FeedbackPolicy): EngineResult | null {
  if (!countingHardBounce(feedback, policy)) return null;
  const parsed = parseAddress(email);
  if (!parsed.ok) return null;
  const traits = traitsOf(parsed.address);
  const result = buildResult(BOUNCED, traits, { now: policy.now, recheckDelayMs: 0 }, { input: email, email: parsed.address.normalized, attempts: 0, mxHost: null });
  return withComplaint(result, feedback);
}

/** A probed result with the feedback applied: a catch-all resolved by a delivery, a complaint's suppression. */
export function applyFeedback(result: EngineResult, feedback: AddressFeedback | null, policy: FeedbackPolicy): EngineResult {
  if (feedback === null) return result;
  let out = result;
  if (result.envelope.verdict === 'CATCH_ALL' && countingDelivery(feedback, policy)) {
    const delivered: Classification = {
      verdict: 'DELIVERABLE',
      reasons: ['delivered_recently', ...result.envelope.reasons.filter((r) => r !== 'delivered_recently')],
      confidence: 0.9,
      evidence: 'delivery_history',
    };
    const traits = { role: false, free: false, didYouMean: result.didYouMean, providerFamily: result.envelope.provider_family };
    const rebuilt = buildResult(delivered, traits, { now: new Date(result.verifiedAt), recheckDelayMs: 0 }, result);
    out = { ...rebuilt, verifiedAt: result.verifiedAt, providerFamily: result.providerFamily };
  }
  return withComplaint(out, feedback);
}

function withComplaint(result: EngineResult, feedback: AddressFeedback | null): EngineResult {
  if (!feedback?.complaints) return result;
  const reasons = result.envelope.reasons.includes('complained') ? result.envelope.reasons : ['complained' as const, ...result.envelope.reasons];
  return { ...result, envelope: { ...result.envelope, decision: 'suppress', reasons } };
}

/** True when the feedback holds anything at all (an empty summary is no history). */
export function hasFeedback(feedback: AddressFeedback | null): feedback is AddressFeedback {
  return feedback !== null && (feedback.lastHardBounce !== null || feedback.softBounces !== null || feedback.lastDelivery !== null || feedback.complaints !== null);
}

/**
 * The envelope's `history` when only feedback is known so far (checks 0); the store adds the
 * account's earlier checks of the address when it records the result (billing-rules.ts).
 */
export function feedbackHistory(feedback: AddressFeedback | null): AddressHistory | null {
  if (!hasFeedback(feedback)) return null;
  return { checks: 0, firstCheckedAt: null, lastCheckedAt: null, lastVerdict: null, ...pickFeedback(feedback) };
}

export function pickFeedback(f: AddressFeedback): AddressFeedback {
  return { lastHardBounce: f.lastHardBounce, softBounces: f.softBounces, lastDelivery: f.lastDelivery, complaints: f.complaints };
}

export const NO_FEEDBACK: AddressFeedback = { lastHardBounce: null, softBounces: null, lastDelivery: null, complaints: null };
