/**
 * The inbound feedback tokens (docs/feedback.md): `/feedback/{source}/{token}` names the account
 * and the source a provider posts for. A token is `fb_` + 40 random base62 characters (the API
 * key's alphabet and length, src/service/keys/key-format.ts), shown once; the store keeps its SHA-256 and a
 * short display prefix, and a delivery is matched by hashing the token it carries.
 */
import { createPublicKey, randomInt } from 'node:crypto';
import type { FeedbackRole } from '../../store/roles/feedback/feedback.js';
import { hashApiKey } from '../keys/key-format.js';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const TOKEN_SHAPE = /^fb_[0-9A-Za-z]{40}$/;

/** The sources that post events over HTTP. */
export const WEBHOOK_SOURCES = ['ses', 'sendgrid', 'postmark', 'mailgun'] as const;
export type WebhookSource = (typeof WEBHOOK_SOURCES)[number];

export const isWebhookSource = (s: string): s is WebhookSource => (WEBHOOK_SOURCES as readonly string[]).includes(s);

/** Makes the source's token (replacing an earlier one) and returns it: the only time it is seen. */
export async function createSourceToken(role: FeedbackRole, accountId: string, source: WebhookSource, now: Date): Promise<string> {
  let secret = '';
  for (let i = 0; i < 40; i++) secret += BASE62[randomInt(BASE62.length)];
  const token = `fb_${secret}`;
  await role.setToken({ accountId, source, tokenHash: hashApiKey(token), tokenPrefix: token.slice(0, 9), now });
  return token;
}

/** The account a token posts for, when it is a token of that source. */
export async function sourceOfToken(role: FeedbackRole, source: string, token: string): Promise<{ accountId: string; verifyKey: string | null } | null> {
  if (!TOKEN_SHAPE.test(token)) return null;
  const found = await role.sourceByToken(hashApiKey(token));
  return found && found.source === source ? { accountId: found.accountId, verifyKey: found.verifyKey } : null;
}

/**
 * What verifies a source's deliveries (docs/feedback.md): SendGrid's verification key (base64 DER
 * or PEM public key), Mailgun's HTTP webhook signing key, Postmark's `user:password`, or the SNS
 * TopicArn SES publishes to (a pin: SNS messages are verified by their own certificate). Null when
 * it is acceptable, else why not.
 */
export function verifyKeyProblem(source: WebhookSource, key: string): string | null {
  const k = key.trim();
  if (k === '' || k.length > 4096) return 'the key is empty or too long';
  switch (source) {
    case 'sendgrid':
      try {
        if (k.includes('BEGIN PUBLIC KEY')) createPublicKey(k);
        else createPublicKey({ key: Buffer.from(k, 'base64'), format: 'der', type: 'spki' });
        return null;
      } catch {
        return "not a public key: paste the Signed Event Webhook's verification key as SendGrid shows it";
      }
    case 'mailgun':
      return null;
    case 'postmark':
      return k.includes(':') ? null : 'give the basic-auth credentials as user:password';
    case 'ses':
      return /^arn:aws[a-z-]*:sns:[a-z0-9-]+:\d{12}:[A-Za-z0-9_-]+$/.test(k) ? null : 'give the SNS topic ARN (arn:aws:sns:REGION:ACCOUNT:TOPIC)';
  }
}
