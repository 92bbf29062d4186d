/**
 * Feedback events (docs/feedback.md): what a sender's own mail reports about an address — a hard
 * or soft bounce, a delivery, a complaint — whichever source it came from (a DSN, a CSV row, an
 * ESP's webhook). Pure: parsing and the summary rule, no storage.
 */
import type { AddressFeedback } from '../core/types.js';

export const FEEDBACK_KINDS = ['hard_bounce', 'soft_bounce', 'delivery', 'complaint'] as const;
export type FeedbackKind = (typeof FEEDBACK_KINDS)[number];

export const FEEDBACK_SOURCES = ['csv', 'dsn', 'ses', 'sendgrid', 'postmark', 'mailgun'] as const;
export type FeedbackSource = (typeof FEEDBACK_SOURCES)[number];

export interface FeedbackEvent {
  /** Normalised as a check normalises it (domain lower-cased, IDNA). */
  email: string;
  kind: FeedbackKind;
  /** When it happened (ISO 8601), as the source reports it. */
  at: string;
  /** The enhanced status code (RFC 3463) or reply code, when the source gives one. */
  code: string | null;
  /**
   * The source's own id for the event (an ESP's event id, a DSN's Message-ID and recipient, a
   * digest of a CSV row): the same event taken twice is recorded once.
   */
  eventId: string;
}

const later = (a: string | undefined, b: string): boolean => a === undefined || Date.parse(b) >= Date.parse(a);

/** The address's feedback after one more event (events may come in any order: the latest wins each "last"). */
export function applyEvent(previous: AddressFeedback, event: FeedbackEvent, source: string): AddressFeedback {
  const seen = { at: event.at, source };
  switch (event.kind) {
    case 'hard_bounce':
      return later(previous.lastHardBounce?.at, event.at) ? { ...previous, lastHardBounce: { ...seen, code: event.code } } : previous;
    case 'delivery':
      return later(previous.lastDelivery?.at, event.at) ? { ...previous, lastDelivery: seen } : previous;
    case 'soft_bounce': {
      const count = (previous.softBounces?.count ?? 0) + 1;
      const last = later(previous.softBounces?.at, event.at) ? seen : { at: previous.softBounces?.at ?? event.at, source: previous.softBounces?.source ?? source };
      return { ...previous, softBounces: { ...last, count } };
    }
    case 'complaint': {
      const count = (previous.complaints?.count ?? 0) + 1;
      const last = later(previous.complaints?.at, event.at) ? seen : { at: previous.complaints?.at ?? event.at, source: previous.complaints?.source ?? source };
      return { ...previous, complaints: { ...last, count } };
    }
  }
}
