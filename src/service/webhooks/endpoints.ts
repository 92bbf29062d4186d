/**
 * Managing an account's webhook endpoints, for the dashboard and `presend webhooks`: checks the
 * URL and the event list, makes the signing secret (shown once, on creation and on rotation) and
 * keeps the secret before a rotation signing beside the new one for a grace period. Refusals are
 * data, as the other admin operations' (src/service/operations/admin.ts).
 */
import type { PrivateMxAllowance } from '../../core/dns/address-safety.js';
import type { WebhooksRole } from '../../store/roles/webhooks/webhooks.js';
import { isWebhookEventType, WEBHOOK_EVENT_TYPES } from '../../store/roles/webhooks/webhook-records.js';
import type { WebhookEndpoint, WebhookEventType } from '../../store/roles/webhooks/webhook-records.js';
import { refused } from '../operations/admin.js';
import type { AdminOutcome } from '../operations/admin.js';
import { literalAddressRefusal } from './safe-post.js';
import { generateWebhookSecret } from './signing.js';

/** How long the secret before a rotation keeps signing beside the new one (docs/webhooks.md). */
export const ROTATION_GRACE_MS = 24 * 60 * 60 * 1000;
export const MAX_URL_LENGTH = 2000;
export const MAX_DESCRIPTION_LENGTH = 200;

/** The URL as it will be posted to, or why it cannot be. */
export function checkEndpointUrl(text: string, allowPrivate: PrivateMxAllowance): AdminOutcome<string> {
  const trimmed = text.trim();
  if (trimmed.length > MAX_URL_LENGTH) return refused('invalid_argument', `the URL is longer than ${MAX_URL_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(trimmed);
  } catch {
    return refused('invalid_argument', `"${trimmed}" is not a URL; give one such as https://example.com/hooks/presend`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return refused('invalid_argument', 'the URL must start with https:// (or http://)');
  // A secret in the URL would be shown in every listing and log line; the signature is the authentication.
  if (url.username || url.password) return refused('invalid_argument', 'the URL must not carry a user name or password');
  // Names are judged when each attempt connects (safe-post.ts); an address given outright can be refused now.
  const literal = literalAddressRefusal(url, allowPrivate);
  if (literal) return refused('invalid_argument', literal);
  return { kind: 'done', value: url.toString() };
}

/** Event types from a comma list or several values; none given means every type. */
export function parseEventTypes(given: readonly string[]): AdminOutcome<WebhookEventType[]> {
  const names = given.flatMap((g) => g.split(',')).map((n) => n.trim()).filter((n) => n !== '');
  if (names.length === 0) return { kind: 'done', value: [...WEBHOOK_EVENT_TYPES] };
  const unknown = names.filter((n) => !isWebhookEventType(n));
  if (unknown.length > 0) return refused('invalid_argument', `unknown event type ${unknown.join(', ')}; the types are ${WEBHOOK_EVENT_TYPES.join(', ')}`);
  return { kind: 'done', value: WEBHOOK_EVENT_TYPES.filter((t) => names.includes(t)) };
}

export async function addEndpoint(
  webhooks: WebhooksRole,
  input: { accountId: string; url: string; events: readonly string[]; description: string | null; allowPrivate: PrivateMxAllowance; now: Date },
): Promise<AdminOutcome<{ endpoint: WebhookEndpoint; secret: string }>> {
  const url = checkEndpointUrl(input.url, input.allowPrivate);
  if (url.kind === 'refused') return url;
  const events = parseEventTypes(input.events);
  if (events.kind === 'refused') return events;
  const description = input.description?.trim().slice(0, MAX_DESCRIPTION_LENGTH) || null;
  const secret = generateWebhookSecret();
  const endpoint = await webhooks.createEndpoint({ accountId: input.accountId, url: url.value, events: events.value, description, secret, now: input.now });
  return { kind: 'done', value: { endpoint, secret } };
}

export async function rotateEndpointSecret(
  webhooks: WebhooksRole,
  input: { accountId: string; endpointId: string; now: Date },
): Promise<AdminOutcome<{ endpoint: WebhookEndpoint; secret: string }>> {
  const secret = generateWebhookSecret();
  const graceUntil = new Date(input.now.getTime() + ROTATION_GRACE_MS);
  const endpoint = await webhooks.rotateSecret({ accountId: input.accountId, endpointId: input.endpointId, secret, graceUntil, now: input.now });
  return endpoint ? { kind: 'done', value: { endpoint, secret } } : refused('not_found', `no webhook endpoint ${input.endpointId} in this account`);
}
