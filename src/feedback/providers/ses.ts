/**
 * Amazon SES notifications (the `Message` of an SNS notification): bounce, complaint and delivery,
 * as SES's notification contents and event publishing write them (`notificationType` or
 * `eventType`). A Permanent bounce is hard, a Transient or Undetermined one soft, as SES counts them.
 * https://docs.aws.amazon.com/ses/latest/dg/notification-contents.html
 */
import { EventList, isObject, refuse } from './provider-events.js';
import type { ProviderReading } from './provider-events.js';

const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

export function readSesNotification(message: string): ProviderReading {
  let m: unknown;
  try {
    m = JSON.parse(message);
  } catch {
    return refuse('the SNS message is not an SES notification (not JSON)');
  }
  if (!isObject(m)) return refuse('the SNS message is not an SES notification');
  const type = m.notificationType ?? m.eventType;
  const out = new EventList();
  const mail = isObject(m.mail) ? m.mail : {};
  if (type === 'Bounce' && isObject(m.bounce)) {
    const b = m.bounce;
    const kind = b.bounceType === 'Permanent' ? 'hard_bounce' : 'soft_bounce';
    for (const r of list(b.bouncedRecipients)) {
      if (!isObject(r)) continue;
      const code = typeof r.status === 'string' ? r.status : null;
      out.add({ email: r.emailAddress, kind, at: b.timestamp, code, eventId: `${String(b.feedbackId)}:${String(r.emailAddress)}` });
    }
  } else if (type === 'Complaint' && isObject(m.complaint)) {
    const c = m.complaint;
    for (const r of list(c.complainedRecipients)) {
      if (isObject(r)) out.add({ email: r.emailAddress, kind: 'complaint', at: c.timestamp, eventId: `${String(c.feedbackId)}:${String(r.emailAddress)}` });
    }
  } else if (type === 'Delivery' && isObject(m.delivery)) {
    const d = m.delivery;
    for (const r of list(d.recipients)) out.add({ email: r, kind: 'delivery', at: d.timestamp, eventId: `${String(mail.messageId)}:${String(r)}` });
  } else {
    out.ignored++;
  }
  return out.reading();
}
