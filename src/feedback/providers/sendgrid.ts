/**
 * SendGrid's Event Webhook: a JSON array of events, signed when "Signed Event Webhook" is on —
 * ECDSA (P-256, SHA-256) over the timestamp header followed by the raw body, the signature in
 * `X-Twilio-Email-Event-Webhook-Signature` (base64 DER), checked with the account's verification
 * key (base64 DER public key, as SendGrid shows it).
 * https://www.twilio.com/docs/sendgrid/for-developers/tracking-events/getting-started-event-webhook-security-features
 * Events read: delivered, bounce (type `blocked` is soft; a bounce is otherwise hard or soft from
 * its status and reason, bounce-kind.ts), deferred (soft), spamreport (complaint).
 */
import { createPublicKey, verify } from 'node:crypto';
import { bounceKind } from '../bounce-kind.js';
import { EventList, isObject, parseJson, refuse } from './provider-events.js';
import type { ProviderReading } from './provider-events.js';

export const SENDGRID_SIGNATURE = 'x-twilio-email-event-webhook-signature';
export const SENDGRID_TIMESTAMP = 'x-twilio-email-event-webhook-timestamp';

function publicKeyOf(text: string) {
  const trimmed = text.trim();
  return trimmed.includes('BEGIN PUBLIC KEY') ? createPublicKey(trimmed) : createPublicKey({ key: Buffer.from(trimmed, 'base64'), format: 'der', type: 'spki' });
}

/** Null when the signature verifies with `verifyKey`; else why not. */
export function sendgridSignatureProblem(body: Buffer, headers: Record<string, string | undefined>, verifyKey: string | null): string | null {
  if (!verifyKey) return 'no SendGrid verification key is set for this source (presend feedback key sendgrid …)';
  const signature = headers[SENDGRID_SIGNATURE];
  const timestamp = headers[SENDGRID_TIMESTAMP];
  if (!signature || !timestamp) return 'the delivery is not signed (Signed Event Webhook headers missing)';
  try {
    const ok = verify('sha256', Buffer.concat([Buffer.from(timestamp, 'utf8'), body]), { key: publicKeyOf(verifyKey), dsaEncoding: 'der' }, Buffer.from(signature, 'base64'));
    return ok ? null : 'the SendGrid signature does not verify';
  } catch (err) {
    return `the SendGrid signature could not be checked (${(err as Error).message})`;
  }
}

export function readSendgridEvents(body: Buffer): ProviderReading {
  const events = parseJson(body);
  if (!Array.isArray(events)) return refuse('a SendGrid delivery is a JSON array of events');
  const out = new EventList();
  for (const e of events) {
    if (!isObject(e)) {
      out.ignored++;
      continue;
    }
    const status = typeof e.status === 'string' ? e.status : null;
    const reason = typeof e.reason === 'string' ? e.reason : typeof e.response === 'string' ? e.response : null;
    const base = { email: e.email, at: e.timestamp, eventId: e.sg_event_id };
    switch (e.event) {
      case 'delivered':
        out.add({ ...base, kind: 'delivery' });
        break;
      case 'bounce':
        out.add({ ...base, kind: e.type === 'blocked' ? 'soft_bounce' : bounceKind(status, reason), code: status });
        break;
      case 'deferred':
        out.add({ ...base, kind: 'soft_bounce', code: status });
        break;
      case 'spamreport':
        out.add({ ...base, kind: 'complaint' });
        break;
      default:
        out.ignored++;
    }
  }
  return out.reading();
}
