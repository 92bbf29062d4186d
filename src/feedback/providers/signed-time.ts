/**
 * Replays of a signed delivery. A signature proves who sent a delivery, not when: whoever once
 * saw one (a proxy's log, a leaked request dump) could post it again forever. Where the provider
 * signs a time with it — SendGrid's timestamp header, Mailgun's `signature.timestamp`, SNS's
 * `Timestamp` — a delivery signed further from now than the window is refused. Inside the window a
 * replay adds nothing anyway: its events are recorded once by their ids, and the window stays
 * shorter than the events are kept (docs/feedback.md). Postmark signs nothing, so it has no time.
 *
 * Why an hour by default rather than Standard Webhooks' five minutes: SNS's `Timestamp` is when
 * the message was published, repeated by every retry of its delivery policy (which an owner may
 * stretch), so a genuine notification can arrive well after it; an hour also covers a provider's
 * queue and a clock that drifted.
 */

/** PRESEND_FEEDBACK_SIGNATURE_MAX_AGE_S's default. */
export const DEFAULT_SIGNATURE_MAX_AGE_S = 3600;

/** A Unix time in seconds as the providers write it ("1700000000"), in ms; NaN when it is not one. */
export function unixSecondsToMs(text: string | undefined): number {
  return text !== undefined && /^\d{1,12}(\.\d+)?$/.test(text.trim()) ? Number(text.trim()) * 1000 : Number.NaN;
}

/** Null when `signedAtMs` is within `maxAgeS` of `now` (either side: a clock ahead is tolerated as much as one behind); else why not. */
export function signedTimeProblem(provider: string, signedAtMs: number, now: Date, maxAgeS: number): string | null {
  if (!Number.isFinite(signedAtMs)) return `the ${provider} delivery carries no readable signed time`;
  const offS = Math.round((now.getTime() - signedAtMs) / 1000);
  if (Math.abs(offS) <= maxAgeS) return null;
  const when = new Date(signedAtMs).toISOString();
  return `the ${provider} delivery was signed at ${when}, ${Math.abs(offS)} s ${offS > 0 ? 'ago' : 'ahead'}: more than the ${maxAgeS} s allowed (a replay?)`;
}
