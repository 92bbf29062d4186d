/**
 * Standard Webhooks 1.0 signatures (https://www.standardwebhooks.com, "Signature scheme"): the
 * content signed is `{webhook-id}.{webhook-timestamp}.{body}`, the signature HMAC-SHA256 under the
 * secret's decoded bytes, sent as `v1,{base64}`. During a rotation both the new and the old secret
 * sign, space-separated in one `webhook-signature` header, so a receiver that still holds either
 * verifies the message (zero-downtime rotation).
 */
import { createHmac, randomBytes } from 'node:crypto';
import type { WebhookSecrets } from '../../store/roles/webhooks/webhook-records.js';

export const SECRET_PREFIX = 'whsec_';
/** The spec asks for at least 24 random bytes and at most 64; 32 is the size of the HMAC's own block-sized key. */
const SECRET_BYTES = 32;

/** A new signing secret: `whsec_` + base64 of 32 random bytes. Shown once to its owner. */
export function generateWebhookSecret(): string {
  return SECRET_PREFIX + randomBytes(SECRET_BYTES).toString('base64');
}

/** The key bytes of a `whsec_…` secret. */
export function secretKey(secret: string): Buffer {
  if (!secret.startsWith(SECRET_PREFIX)) throw new Error('a webhook secret starts with whsec_');
  return Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64');
}

/** `v1,{base64 HMAC-SHA256 of id.timestamp.body}` under one secret. */
export function signature(secret: string, messageId: string, timestampSeconds: number, body: string): string {
  const mac = createHmac('sha256', secretKey(secret)).update(`${messageId}.${timestampSeconds}.${body}`).digest('base64');
  return `v1,${mac}`;
}

/** The three headers of one attempt; `webhook-timestamp` is the attempt's own time (replay protection), not the event's. */
export function webhookHeaders(secrets: WebhookSecrets, messageId: string, at: Date, body: string): Record<string, string> {
  const timestamp = Math.floor(at.getTime() / 1000);
  const signatures = [secrets.current, ...(secrets.previous ? [secrets.previous] : [])].map((s) => signature(s, messageId, timestamp, body));
  return { 'webhook-id': messageId, 'webhook-timestamp': String(timestamp), 'webhook-signature': signatures.join(' ') };
}
