/**
 * Postmark's webhooks: one JSON record per request (RecordType Bounce, Delivery, SpamComplaint).
 * Postmark does not sign; it sends the basic-auth credentials put in the webhook URL, so a source
 * with a verify key (`user:password`) refuses a delivery without them, and the token in the path
 * authenticates otherwise. https://postmarkapp.com/developer/webhooks/webhooks-overview
 * Bounce types: HardBounce and BadEmailAddress are hard, SpamComplaint a complaint, the transient
 * kinds (SoftBounce, Transient, DnsError, Blocked, …) soft; auto-replies and (un)subscribe notices
 * are not feedback about the address.
 */
import { timingSafeEqual } from 'node:crypto';
import { EventList, isObject, refuse } from './provider-events.js';
import type { ProviderReading } from './provider-events.js';
import type { FeedbackKind } from '../events.js';

const NOT_FEEDBACK = new Set(['AutoResponder', 'Subscribe', 'Unsubscribe', 'OpenRelayTest', 'ChallengeVerification', 'InboundError', 'AddressChange', 'ManuallyDeactivated']);

function bounceKindOf(type: unknown): FeedbackKind | null {
  if (type === 'HardBounce' || type === 'BadEmailAddress') return 'hard_bounce';
  if (type === 'SpamComplaint') return 'complaint';
  if (typeof type !== 'string' || NOT_FEEDBACK.has(type)) return null;
  return 'soft_bounce';
}

export function postmarkAuthProblem(authorization: string | undefined, verifyKey: string | null): string | null {
  if (!verifyKey) return null;
  const given = /^Basic\s+(.+)$/i.exec(authorization ?? '')?.[1];
  if (!given) return 'the delivery carries no basic-auth credentials';
  const a = Buffer.from(Buffer.from(given, 'base64').toString('utf8'));
  const b = Buffer.from(verifyKey);
  return a.length === b.length && timingSafeEqual(a, b) ? null : 'the basic-auth credentials do not match';
}

/**
 * A record's id: its MessageID (a UUID) with the recipient, the record type and the time. Not the
 * numeric `ID`: it is a 64-bit integer that JSON.parse rounds (4323372036854775807 reads as
 * 4323372036854775808), so two bounces could share it.
 */
const idOf = (body: Record<string, unknown>, email: unknown, at: unknown): string => `${String(body.MessageID)}:${String(email)}:${String(body.RecordType)}:${String(at)}`;

export function readPostmarkRecord(body: unknown): ProviderReading {
  if (!isObject(body) || typeof body.RecordType !== 'string') return refuse('a Postmark delivery is one JSON record with a RecordType');
  const out = new EventList();
  switch (body.RecordType) {
    case 'Bounce':
      out.add({ email: body.Email, kind: bounceKindOf(body.Type), at: body.BouncedAt, code: typeof body.Type === 'string' ? body.Type : null, eventId: idOf(body, body.Email, body.BouncedAt) });
      break;
    case 'SpamComplaint':
      out.add({ email: body.Email, kind: 'complaint', at: body.BouncedAt, eventId: idOf(body, body.Email, body.BouncedAt) });
      break;
    case 'Delivery':
      out.add({ email: body.Recipient, kind: 'delivery', at: body.DeliveredAt, eventId: idOf(body, body.Recipient, body.DeliveredAt) });
      break;
    default:
      out.ignored++;
  }
  return out.reading();
}
