/**
 * What a provider's delivery (one HTTP request) yields once verified: its events, how many of its
 * entries were not feedback Presend reads (opens, clicks, "processed"), or why it is refused.
 * Shared by the four providers' readers of this folder.
 */
import { parseAddress } from '../../core/syntax/address.js';
import type { FeedbackEvent, FeedbackKind } from '../events.js';

export type ProviderReading = { ok: true; events: FeedbackEvent[]; ignored: number } | { ok: false; problem: string };

export const refuse = (problem: string): ProviderReading => ({ ok: false, problem });

/** Collects a delivery's events; entries without a readable address or time are skipped as ignored. */
export class EventList {
  readonly events: FeedbackEvent[] = [];
  ignored = 0;

  add(input: { email: unknown; kind: FeedbackKind | null; at: unknown; code?: string | null; eventId: unknown }): void {
    const parsed = typeof input.email === 'string' ? parseAddress(input.email.trim()) : null;
    const at = timeOf(input.at);
    if (!parsed?.ok || input.kind === null || at === null || (typeof input.eventId !== 'string' && typeof input.eventId !== 'number')) {
      this.ignored++;
      return;
    }
    const email = parsed.address.normalized;
    this.events.push({ email, kind: input.kind, at, code: input.code ?? null, eventId: String(input.eventId) });
  }

  reading(): ProviderReading {
    return { ok: true, events: this.events, ignored: this.ignored };
  }
}

/** ISO 8601 text, or Unix seconds (SendGrid, Mailgun), as ISO 8601; null when it is neither. */
function timeOf(value: unknown): string | null {
  if (typeof value === 'number' && Number.isFinite(value)) return new Date(Math.round(value * 1000)).toISOString();
  if (typeof value === 'string') {
    const t = Date.parse(value);
    return Number.isFinite(t) ? new Date(t).toISOString() : null;
  }
  return null;
}

export function parseJson(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}

export const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
