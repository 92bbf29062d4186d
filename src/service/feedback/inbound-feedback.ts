/**
 * Events a provider posts to `/feedback/{source}/{token}` (docs/feedback.md): the token names the
 * account and the source; the provider's own signature is checked where it signs (SNS for SES,
 * SendGrid, Mailgun; Postmark's basic auth when set), and so is the time the provider signed with
 * it (signed-time.ts: a delivery signed too long ago is a replay); what does not verify is refused
 * and noted on the source (the dashboard shows it). Verified events are recorded once each, by the
 * provider's event id, so a provider's retry of a delivery adds nothing.
 */
import type { Logger } from '../../logger.js';
import type { FeedbackRole } from '../../store/roles/feedback/feedback.js';
import { mailgunSignedTime, readMailgunEvent, mailgunSignatureProblem } from '../../feedback/providers/mailgun.js';
import { readPostmarkRecord, postmarkAuthProblem } from '../../feedback/providers/postmark.js';
import { parseJson } from '../../feedback/providers/provider-events.js';
import type { ProviderReading } from '../../feedback/providers/provider-events.js';
import { readSendgridEvents, SENDGRID_TIMESTAMP, sendgridSignatureProblem } from '../../feedback/providers/sendgrid.js';
import { signedTimeProblem, unixSecondsToMs } from '../../feedback/providers/signed-time.js';
import { readSesNotification } from '../../feedback/providers/ses.js';
import { isSnsUrl, readSnsMessage, snsSignatureProblem } from '../../feedback/providers/sns.js';
import type { CertificateFetch } from '../../feedback/providers/sns.js';
import { isWebhookSource, sourceOfToken } from './source-tokens.js';
import { feedbackEventCutoff, isPastRetention } from '../../feedback/event-retention.js';
import type { WebhookSource } from './source-tokens.js';

export interface InboundFeedbackOptions {
  feedback: FeedbackRole;
  /** SNS signing certificates (pluggable: tests serve a local one). */
  fetchCertificate: CertificateFetch;
  /** Visits an SNS SubscribeURL, which confirms the subscription (pluggable for tests). */
  confirmSubscription: (url: string) => Promise<void>;
  /** How far from now a provider's signed time may be (PRESEND_FEEDBACK_SIGNATURE_MAX_AGE_S). */
  signatureMaxAgeS: number;
  /** PRESEND_FEEDBACK_EVENTS_RETENTION_DAYS: an older event is ignored (it may have been taken and purged already). */
  eventsRetentionDays: number;
  now: () => Date;
  log: Logger;
}

export interface InboundDelivery {
  source: string;
  token: string;
  /** Lower-case names. */
  headers: Record<string, string | undefined>;
  body: Buffer;
}

export type InboundOutcome =
  | { kind: 'accepted'; recorded: number; duplicates: number; ignored: number; confirmed?: boolean }
  | { kind: 'unknown' }
  | { kind: 'refused'; status: 400 | 401; message: string };

/** Verified, then read: the events, or why the delivery is refused (401: it does not verify; 400: it cannot be read). */
type Checked = { ok: true; reading: ProviderReading; confirmed?: boolean } | { ok: false; status: 400 | 401; message: string };

const unreadable = (message: string): Checked => ({ ok: false, status: 400, message });
const unverified = (message: string): Checked => ({ ok: false, status: 401, message });

async function check(o: InboundFeedbackOptions, source: WebhookSource, d: InboundDelivery, verifyKey: string | null): Promise<Checked> {
  // Asked only once the signature verified: the time is one the provider signed, not one anybody wrote.
  const stale = (provider: string, signedAtMs: number) => signedTimeProblem(provider, signedAtMs, o.now(), o.signatureMaxAgeS);
  switch (source) {
    case 'sendgrid': {
      const problem = sendgridSignatureProblem(d.body, d.headers, verifyKey) ?? stale('SendGrid', unixSecondsToMs(d.headers[SENDGRID_TIMESTAMP]));
      return problem ? unverified(problem) : { ok: true, reading: readSendgridEvents(d.body) };
    }
    case 'mailgun': {
      const body = parseJson(d.body);
      if (body === undefined) return unreadable('the body is not JSON');
      const problem = mailgunSignatureProblem(body, verifyKey) ?? stale('Mailgun', unixSecondsToMs(mailgunSignedTime(body)));
      return problem ? unverified(problem) : { ok: true, reading: readMailgunEvent(body) };
    }
    case 'postmark': {
      const problem = postmarkAuthProblem(d.headers.authorization, verifyKey);
      if (problem) return unverified(problem);
      const body = parseJson(d.body);
      return body === undefined ? unreadable('the body is not JSON') : { ok: true, reading: readPostmarkRecord(body) };
    }
    case 'ses': {
      const message = readSnsMessage(parseJson(d.body));
      if (!message) return unreadable('the body is not an SNS message');
      const problem = (await snsSignatureProblem(message, o.fetchCertificate)) ?? stale('SNS', Date.parse(message.Timestamp));
      if (problem) return unverified(problem);
      // A verify key pins the topic: another topic's messages, however well signed, are not this account's.
      if (verifyKey && message.TopicArn !== verifyKey) return unverified(`the SNS topic ${message.TopicArn} is not the one set for this source`);
      if (message.Type === 'SubscriptionConfirmation') {
        if (!message.SubscribeURL || !isSnsUrl(message.SubscribeURL)) return unverified('the SubscribeURL is not an SNS URL');
        await o.confirmSubscription(message.SubscribeURL);
        return { ok: true, reading: { ok: true, events: [], ignored: 0 }, confirmed: true };
      }
      if (message.Type === 'UnsubscribeConfirmation') return { ok: true, reading: { ok: true, events: [], ignored: 1 } };
      return { ok: true, reading: readSesNotification(message.Message) };
    }
  }
}

export async function receiveFeedback(o: InboundFeedbackOptions, d: InboundDelivery): Promise<InboundOutcome> {
  if (!isWebhookSource(d.source)) return { kind: 'unknown' };
  const found = await sourceOfToken(o.feedback, d.source, d.token);
  if (!found) return { kind: 'unknown' };
  let checked: Checked;
  try {
    checked = await check(o, d.source, d, found.verifyKey);
  } catch (err) {
    // A subscription confirmation that could not be made: SNS sends the confirmation again.
    checked = { ok: false, status: 400, message: `could not handle the delivery (${(err as Error).message})` };
  }
  if (checked.ok && !checked.reading.ok) checked = unreadable(checked.reading.problem);
  if (!checked.ok) {
    o.log.warn({ source: d.source, accountId: found.accountId, problem: checked.message }, 'a feedback delivery was refused');
    await o.feedback.noteError({ accountId: found.accountId, source: d.source, message: checked.message, now: o.now() });
    return { kind: 'refused', status: checked.status, message: checked.message };
  }
  const reading = checked.reading as Extract<ProviderReading, { ok: true }>;
  const cutoff = feedbackEventCutoff(o.now(), o.eventsRetentionDays);
  const events = reading.events.filter((e) => !isPastRetention(e, cutoff));
  const outcome = events.length > 0 ? await o.feedback.record({ accountId: found.accountId, source: d.source, events, now: o.now() }) : { recorded: 0, duplicates: 0 };
  return { kind: 'accepted', ...outcome, ignored: reading.ignored + reading.events.length - events.length, ...(checked.confirmed ? { confirmed: true } : {}) };
}

/** The default SubscribeURL visit: a GET with a short timeout. */
export async function visitSubscribeUrl(url: string): Promise<void> {
  const res = await fetch(url, { signal: AbortSignal.timeout(5_000), redirect: 'error' });
  if (!res.ok) throw new Error(`the SubscribeURL answered HTTP ${res.status}`);
  await res.arrayBuffer();
}
