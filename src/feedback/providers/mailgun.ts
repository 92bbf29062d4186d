/**
 * Mailgun's webhooks: one JSON event per request, `{signature: {timestamp, token, signature},
 * "event-data": {…}}`, the signature an HMAC-SHA256 of timestamp + token with the account's HTTP
 * webhook signing key, in hex.
 * https://documentation.mailgun.com/docs/mailgun/user-manual/tracking-messages/#securing-webhooks
 * Events read: delivered, failed (severity permanent: hard or soft from its delivery status,
 * bounce-kind.ts; temporary: soft), complained.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { bounceKind } from '../bounce-kind.js';
import { EventList, isObject, refuse } from './provider-events.js';
import type { ProviderReading } from './provider-events.js';

export function mailgunSignatureProblem(body: unknown, verifyKey: string | null): string | null {
  if (!verifyKey) return 'no Mailgun signing key is set for this source (presend feedback key mailgun …)';
  const s = isObject(body) && isObject(body.signature) ? body.signature : null;
  if (!s || typeof s.timestamp !== 'string' || typeof s.token !== 'string' || typeof s.signature !== 'string') return 'the delivery is not signed (no signature object)';
  const expected = createHmac('sha256', verifyKey).update(s.timestamp + s.token).digest();
  const given = Buffer.from(s.signature, 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected) ? null : 'the Mailgun signature does not verify';
}

/** The time Mailgun signed with the delivery (`signature.timestamp`, Unix seconds), once the signature verified. */
export function mailgunSignedTime(body: unknown): string | undefined {
  const s = isObject(body) && isObject(body.signature) ? body.signature : null;
  return s && typeof s.timestamp === 'string' ? s.timestamp : undefined;
}

export function readMailgunEvent(body: unknown): ProviderReading {
  const e = isObject(body) && isObject(body['event-data']) ? body['event-data'] : null;
  if (!e) return refuse('a Mailgun delivery has an "event-data" object');
  const out = new EventList();
  const status = isObject(e['delivery-status']) ? e['delivery-status'] : {};
  const code = typeof status.code === 'number' ? status.code : null;
  const message = typeof status.message === 'string' ? status.message : typeof status.description === 'string' ? status.description : '';
  const enhanced = /\b([245]\.\d{1,3}\.\d{1,3})\b/.exec(message)?.[1] ?? null;
  const base = { email: e.recipient, at: e.timestamp, eventId: e.id };
  switch (e.event) {
    case 'delivered':
      out.add({ ...base, kind: 'delivery' });
      break;
    case 'failed':
      out.add({ ...base, kind: e.severity === 'permanent' ? bounceKind(enhanced, code !== null ? `${code} ${message}` : null) : 'soft_bounce', code: enhanced ?? (code !== null ? String(code) : null) });
      break;
    case 'complained':
      out.add({ ...base, kind: 'complaint' });
      break;
    default:
      out.ignored++;
  }
  return out.reading();
}

