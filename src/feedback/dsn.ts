/**
 * Delivery status notifications (RFC 3464): a bounce message an MTA sends back, read with a
 * maintained MIME parser (postal-mime). Only a `multipart/report; report-type=delivery-status`
 * message (or its RFC 6533 `global-delivery-status` form) counts: a human-looking "your mail
 * bounced" without the machine-readable part is refused, not guessed at. Each per-recipient block
 * gives one event: `Action: failed` a hard or soft bounce (bounce-kind.ts), `delayed` a soft
 * bounce, `delivered`/`relayed`/`expanded` (a positive DSN, RFC 3464 §2.3.3) a delivery.
 */
import { createHash } from 'node:crypto';
import PostalMime from 'postal-mime';
import { parseAddress } from '../core/syntax/address.js';
import { bounceKind, statusOf } from './bounce-kind.js';
import type { FeedbackEvent, FeedbackKind } from './events.js';

export type DsnReading = { ok: true; events: FeedbackEvent[] } | { ok: false; problem: string };

/** The header fields of one block of a delivery-status body (RFC 3464 §2.1: header-style fields, folded lines, blank line between blocks). */
function fieldBlocks(body: string): Array<Map<string, string>> {
  const blocks: Array<Map<string, string>> = [];
  let current = new Map<string, string>();
  let last: string | null = null;
  for (const raw of body.replace(/\r\n/g, '\n').split('\n')) {
    if (raw.trim() === '') {
      if (current.size > 0) blocks.push(current);
      current = new Map();
      last = null;
      continue;
    }
    if (/^[ \t]/.test(raw) && last !== null) {
      current.set(last, `${current.get(last) ?? ''} ${raw.trim()}`);
      continue;
    }
    const colon = raw.indexOf(':');
    if (colon <= 0) continue;
    last = raw.slice(0, colon).trim().toLowerCase();
    current.set(last, raw.slice(colon + 1).trim());
  }
  if (current.size > 0) blocks.push(current);
  return blocks;
}

/** `rfc822; a@b` (or `utf-8; …`, RFC 6533) → the address. */
function recipientOf(field: string | undefined): string | null {
  if (!field) return null;
  const value = field.includes(';') ? field.slice(field.indexOf(';') + 1) : field;
  return value.trim().replace(/^<|>$/g, '') || null;
}

function kindOf(action: string, status: string | null, diagnostic: string | null): FeedbackKind | null {
  switch (action) {
    case 'failed':
      return bounceKind(status, diagnostic);
    case 'delayed':
      return 'soft_bounce';
    case 'delivered':
    case 'relayed':
    case 'expanded':
      return 'delivery';
    default:
      return null;
  }
}

function dateOf(...candidates: Array<string | undefined>): string | null {
  for (const c of candidates) {
    if (!c) continue;
    const t = Date.parse(c);
    if (Number.isFinite(t)) return new Date(t).toISOString();
  }
  return null;
}

/** Reads one message. `fallbackId` names the message when it has no Message-ID (its file and position). */
export async function readDsn(raw: Uint8Array, fallbackId: string): Promise<DsnReading> {
  let email;
  try {
    email = await PostalMime.parse(raw, { attachmentEncoding: 'utf8' });
  } catch (err) {
    return { ok: false, problem: `not a readable MIME message (${(err as Error).message})` };
  }
  const type = email.headers.find((h) => h.key === 'content-type')?.value ?? '';
  if (!/^\s*multipart\/report\b/i.test(type) || !/report-type\s*=\s*"?(global-)?delivery-status"?/i.test(type)) {
    return { ok: false, problem: 'not a delivery status notification (no multipart/report; report-type=delivery-status)' };
  }
  const report = email.attachments.find((a) => /^message\/(global-)?delivery-status$/i.test(a.mimeType));
  if (!report) return { ok: false, problem: 'the report has no message/delivery-status part' };
  const [perMessage, ...recipients] = fieldBlocks(typeof report.content === 'string' ? report.content : new TextDecoder().decode(report.content));
  const messageId = email.messageId ?? fallbackId;
  const events: FeedbackEvent[] = [];
  for (const block of recipients) {
    const address = recipientOf(block.get('original-recipient')) ?? recipientOf(block.get('final-recipient'));
    const action = (block.get('action') ?? '').toLowerCase().split(/\s/)[0] ?? '';
    if (!address) continue;
    const parsed = parseAddress(address);
    if (!parsed.ok) continue;
    const diagnostic = block.get('diagnostic-code') ?? null;
    const status = block.get('status') ?? null;
    const kind = kindOf(action, status, diagnostic);
    if (kind === null) continue;
    const at = dateOf(block.get('last-attempt-date'), email.date ?? undefined, perMessage?.get('arrival-date')) ?? null;
    if (at === null) return { ok: false, problem: 'the report has no date (Last-Attempt-Date, Arrival-Date or Date)' };
    events.push({
      email: parsed.address.normalized,
      kind,
      at,
      code: statusOf(status, diagnostic),
      eventId: createHash('sha256').update(`${messageId}\n${parsed.address.normalized}\n${action}`).digest('base64url'),
    });
  }
  if (events.length === 0) return { ok: false, problem: 'the report names no recipient with an action Presend reads' };
  return { ok: true, events };
}
