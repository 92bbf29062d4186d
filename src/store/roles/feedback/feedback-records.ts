/**
 * Role: feedback (the records it hands out). What the store keeps of an account's send feedback
 * (docs/feedback.md), as the service and the dashboard read it.
 */
import type { AddressFeedback, AddressHistory } from '../../../core/types.js';
import type { FeedbackEvent, FeedbackKind } from '../../../feedback/events.js';

/** The feedback of the addresses asked about that have any, and each account's window. */
export interface FeedbackLookup {
  /** Keyed by `feedbackKey(accountId, email)`. */
  feedback: Map<string, AddressFeedback>;
  /** Days a hard bounce or a delivery counts, per account id. */
  windowDays: Map<string, number>;
}

export const feedbackKey = (accountId: string, email: string): string => `${accountId}\n${email}`;

export interface RecordFeedbackInput {
  accountId: string;
  source: string;
  events: readonly FeedbackEvent[];
  /** The file import these events belong to; its counts grow in the same transaction. */
  importId?: string;
  /** Rows of the same chunk refused by the parser (counted on the import and the source). */
  rejected?: number;
  /** The last refusal's words, for the dashboard's source list. */
  lastError?: string | null;
  now: Date;
}

export interface RecordFeedbackOutcome {
  recorded: number;
  duplicates: number;
}

export interface FeedbackImport {
  id: string;
  accountId: string;
  source: string;
  name: string;
  state: 'running' | 'completed' | 'failed';
  events: number;
  duplicates: number;
  rejected: number;
  startedAt: string;
  finishedAt: string | null;
}

/** An account's source as the dashboard lists it: counts, last event, last error, and whether it has a webhook token. */
export interface FeedbackSourceStatus {
  source: string;
  hasToken: boolean;
  /** Whether the key that checks the provider's signature is set (never the key itself). */
  hasVerifyKey: boolean;
  tokenPrefix: string | null;
  events: number;
  duplicates: number;
  errors: number;
  lastEventAt: string | null;
  lastError: string | null;
  lastErrorAt: string | null;
}

export interface StoredFeedbackEvent {
  source: string;
  kind: FeedbackKind;
  at: string;
  code: string | null;
  receivedAt: string;
}

export interface AddressRecord {
  history: AddressHistory | null;
  /** Newest first. */
  events: StoredFeedbackEvent[];
}
