/**
 * The providers' webhooks at `/feedback/{source}/{token}`, with payloads after each provider's
 * documented examples (the ids made unique where the documentation repeats a placeholder) and
 * real signatures: SNS messages signed with a local certificate (the certificate fetch is
 * pluggable), SendGrid's ECDSA signature with a P-256 key made here, Mailgun's HMAC, Postmark's
 * basic auth. What does not verify is refused (401) and shown on the source, and so is a delivery
 * signed longer ago than the window (each provider's example re-signed with an old time: a
 * replay); a delivery sent again is accepted and adds nothing; the events change the account's checks.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHmac, createSign, generateKeyPairSync, sign } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { newIdem, startHarness } from '../api/harness.js';
import type { Harness } from '../api/harness.js';
import { snsStringToSign } from '../../src/feedback/providers/sns.js';
import type { SnsMessage } from '../../src/feedback/providers/sns.js';
import { createSourceToken } from '../../src/service/feedback/source-tokens.js';

const CERT_URL = 'https://sns.us-west-2.amazonaws.com/SimpleNotificationService-0000000000000000000000.pem';
const TOPIC = 'arn:aws:sns:us-west-2:123456789012:ses-feedback';
let dir: string;
let certificate: string;
let signingKey: string;
let h: Harness;
const fetchedCertificates: string[] = [];
const confirmed: string[] = [];

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'presend-sns-'));
  // A self-signed certificate standing in for the one SNS publishes at SigningCertURL.
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'), '-days', '2', '-subj', '/CN=sns.amazonaws.com'], { stdio: 'ignore' });
  certificate = readFileSync(join(dir, 'cert.pem'), 'utf8');
  signingKey = readFileSync(join(dir, 'key.pem'), 'utf8');
  h = await startHarness({
    server: {
      fetchSnsCertificate: async (url) => {
        fetchedCertificates.push(url);
        return certificate;
      },
      confirmSnsSubscription: async (url) => {
        confirmed.push(url);
      },
    },
  });
});
after(async () => {
  await h.close();
  rmSync(dir, { recursive: true, force: true });
});

function signedSns(fields: Omit<SnsMessage, 'Signature' | 'SignatureVersion' | 'SigningCertURL'>, version: '1' | '2' = '1'): SnsMessage {
  const m = { ...fields, SignatureVersion: version, SigningCertURL: CERT_URL, Signature: '' } as SnsMessage;
  m.Signature = createSign(version === '2' ? 'RSA-SHA256' : 'RSA-SHA1').update(snsStringToSign(m)).sign(signingKey, 'base64');
  return m;
}

const post = (path: string, body: string, headers: Record<string, string> = {}) => h.call('POST', path, { rawBody: body, headers: { 'content-type': 'text/plain; charset=UTF-8', ...headers } });

const verdictOf = async (key: string, email: string) => (await h.call('POST', '/v1/verify', { key, idem: newIdem(), body: { email } })).body.presend;

test('Amazon SES through SNS: the subscription is confirmed, signed notifications are recorded once, a forged one is refused', async () => {
  const a = await h.newAccount(5);
  const token = await createSourceToken(h.backend.feedback, a.accountId, 'ses', new Date());
  const path = `/feedback/ses/${token}`;
  const confirmation = signedSns({
    Type: 'SubscriptionConfirmation',
    MessageId: '165545c9-2a5c-472c-8df2-7ff2be2b3b1b',
    Token: '2336412f37fb687f5d51e6e241d09c805a5a57b30d712f794cc5f6a988666d92768dd60a747ba6f3beb71854e285d6ad02428b09ceece29417f1f02d609c582afbacc99c583a916b9981dd2728f4ae6fdb82efd087cc3b7849e05798d2d2785c03b0879594eeac82c01f235d0e717736',
    TopicArn: TOPIC,
    Message: `You have chosen to subscribe to the topic ${TOPIC}.\nTo confirm the subscription, visit the SubscribeURL included in this message.`,
    SubscribeURL: `https://sns.us-west-2.amazonaws.com/?Action=ConfirmSubscription&TopicArn=${TOPIC}&Token=2336412f37`,
    Timestamp: new Date().toISOString(),
  });
  const c = await post(path, JSON.stringify(confirmation), { 'x-amz-sns-message-type': 'SubscriptionConfirmation' });
  assert.equal(c.status, 200, JSON.stringify(c.body));
  assert.equal(c.body.confirmed, true);
  assert.deepEqual(confirmed, [confirmation.SubscribeURL]);

  // SES's documented bounce notification (notification-examples), for an address of this test.
  const bounce = {
    notificationType: 'Bounce',
    bounce: {
      feedbackId: '000001378603177f-7a5433e7-8edb-42ae-af10-f0181f34d6ee-000000',
      bounceType: 'Permanent',
      bounceSubType: 'General',
      bouncedRecipients: [{ emailAddress: 'crash.ses@example.com', action: 'failed', status: '5.1.1', diagnosticCode: 'smtp; 550 5.1.1 user unknown' }],
      timestamp: new Date(Date.now() - 3_600_000).toISOString(),
      remoteMtaIp: '127.0.2.0',
      reportingMTA: 'dsn; a7-12.smtp-out.us-west-2.amazonses.com',
    },
    mail: { timestamp: '2026-11-27T14:59:37.000Z', source: 'john@example.com', messageId: '00000138111222aa-33322211-cccc-cccc-cccc-ddddaaaa0680-000000', destination: ['crash.ses@example.com'] },
  };
  const notification = signedSns({ Type: 'Notification', MessageId: '22b80b92-fdea-4c2c-8f9d-bdfb0c7bf324', TopicArn: TOPIC, Message: JSON.stringify(bounce), Timestamp: new Date().toISOString() });
  const first = await post(path, JSON.stringify(notification));
  assert.equal(first.status, 200, JSON.stringify(first.body));
  assert.deepEqual([first.body.recorded, first.body.duplicates], [1, 0]);
  assert.equal(fetchedCertificates.at(-1), CERT_URL);
  const retried = await post(path, JSON.stringify(notification));
  assert.deepEqual([retried.body.recorded, retried.body.duplicates], [0, 1]);
  const p = await verdictOf(a.live, 'crash.ses@example.com');
  assert.equal(p.verdict, 'UNDELIVERABLE_BOUNCED');
  assert.deepEqual(p.history.lastHardBounce, { at: bounce.bounce.timestamp, source: 'ses', code: '5.1.1' });

  // A complaint and a delivery, signed with SignatureVersion 2 (SHA256).
  const complaint = { notificationType: 'Complaint', complaint: { feedbackId: '0000013786031775-163e3910-53eb-4c8e-a04a-f29debf88a84-000000', complaintFeedbackType: 'abuse', complainedRecipients: [{ emailAddress: 'deliverable.ses@example.com' }], timestamp: new Date().toISOString() }, mail: { messageId: 'm2' } };
  const delivery = { notificationType: 'Delivery', delivery: { timestamp: new Date().toISOString(), processingTimeMillis: 546, recipients: ['catchall.ses@example.com'], smtpResponse: '250 ok: Message 64111812 accepted' }, mail: { messageId: '0000014644fe5ef6-9a483358-9170-4cb4-a269-f5dcdf415321-000000' } };
  for (const [id, message] of [['c1', complaint], ['d1', delivery]] as const) {
    const r = await post(path, JSON.stringify(signedSns({ Type: 'Notification', MessageId: id, TopicArn: TOPIC, Message: JSON.stringify(message), Timestamp: new Date().toISOString() }, '2')));
    assert.equal(r.body.recorded, 1, JSON.stringify(r.body));
  }
  assert.equal((await verdictOf(a.live, 'deliverable.ses@example.com')).decision, 'suppress');
  assert.equal((await verdictOf(a.live, 'catchall.ses@example.com')).verdict, 'DELIVERABLE');

  // Forged: the message changed after signing; a certificate URL off AWS.
  const forged = { ...notification, Message: notification.Message.replace('crash.ses', 'someone.else') };
  const refused = await post(path, JSON.stringify(forged));
  assert.equal(refused.status, 401);
  assert.equal(refused.body.error.code, 'unauthorized');
  const offAws = signedSns({ Type: 'Notification', MessageId: 'x', TopicArn: TOPIC, Message: JSON.stringify(bounce), Timestamp: new Date().toISOString() });
  offAws.SigningCertURL = 'https://sns.us-west-2.amazonaws.com.evil.example/cert.pem';
  assert.equal((await post(path, JSON.stringify(offAws))).status, 401);
  const [source] = await h.backend.feedback.sources(a.accountId);
  assert.deepEqual([source?.source, source?.events, source?.duplicates, source?.errors], ['ses', 3, 1, 2]);
  assert.match(source?.lastError ?? '', /SigningCertURL/);
  assert.equal((await h.backend.feedback.address(a.accountId, 'someone.else@example.com')).history, null);

  // A topic pin refuses another topic's messages, however well signed.
  await h.backend.feedback.setVerifyKey({ accountId: a.accountId, source: 'ses', verifyKey: 'arn:aws:sns:us-west-2:123456789012:other', now: new Date() });
  assert.equal((await post(path, JSON.stringify(notification))).status, 401);
});

test('SendGrid: a signed batch (documented example events) is recorded; a bad signature or a missing key is refused', async () => {
  const a = await h.newAccount(5);
  const token = await createSourceToken(h.backend.feedback, a.accountId, 'sendgrid', new Date());
  const path = `/feedback/sendgrid/${token}`;
  const now = Math.floor(Date.now() / 1000);
  const events = [
    { email: 'example@test.com', timestamp: now, 'smtp-id': '<14c5d75ce93.dfd.64b469@ismtpd-555>', event: 'processed', category: 'cat facts', sg_event_id: 'rbtnWrG1DVDGGGFHFyun0A==', sg_message_id: '14c5d75ce93.dfd.64b469.filter0001.16648.5515E0B88.000000000000000000000' },
    { email: 'soft.sg@example.com', timestamp: now, event: 'deferred', category: 'cat facts', sg_event_id: 'nv2T2LpDJ0s2eW1ewsMWGw==', sg_message_id: 'm1', response: '400 try again later', attempt: '5' },
    { email: 'catchall.sg@example.com', timestamp: now, event: 'delivered', category: 'cat facts', sg_event_id: 'KRiuXuVbObb5RiE3jvIYeQ==', sg_message_id: 'm2', response: '250 OK' },
    { email: 'crash.sg@example.com', timestamp: now, event: 'bounce', category: 'cat facts', sg_event_id: '6g4ZI7SA-xmRDv57GoPIPw==', sg_message_id: 'm3', reason: '500 unknown recipient', status: '5.0.0', type: 'bounce' },
    { email: 'deliverable.sg@example.com', timestamp: now, event: 'spamreport', category: 'cat facts', sg_event_id: '37nvH5QBz858KGVYCM4uOA==', sg_message_id: 'm4' },
  ];
  const body = JSON.stringify(events);
  const unsignedKeyless = await post(path, body, { 'content-type': 'application/json' });
  assert.equal(unsignedKeyless.status, 401, 'no key set: nothing can verify');
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  await h.backend.feedback.setVerifyKey({ accountId: a.accountId, source: 'sendgrid', verifyKey: publicKey.export({ format: 'der', type: 'spki' }).toString('base64'), now: new Date() });
  const timestamp = String(now);
  const signature = sign('sha256', Buffer.from(timestamp + body), { key: privateKey, dsaEncoding: 'der' }).toString('base64');
  const headers = { 'content-type': 'application/json', 'x-twilio-email-event-webhook-signature': signature, 'x-twilio-email-event-webhook-timestamp': timestamp };
  const ok = await post(path, body, headers);
  assert.equal(ok.status, 200, JSON.stringify(ok.body));
  assert.deepEqual([ok.body.recorded, ok.body.duplicates, ok.body.ignored], [4, 0, 1]);
  assert.deepEqual([(await post(path, body, headers)).body.duplicates], [4]);
  const tampered = await post(path, body.replace('crash.sg', 'other.sg'), headers);
  assert.equal(tampered.status, 401);
  assert.equal((await post(path, body, { ...headers, 'x-twilio-email-event-webhook-timestamp': String(now + 1) })).status, 401);
  assert.equal((await verdictOf(a.live, 'crash.sg@example.com')).verdict, 'UNDELIVERABLE_BOUNCED');
  assert.equal((await verdictOf(a.live, 'catchall.sg@example.com')).verdict, 'DELIVERABLE');
  assert.equal((await verdictOf(a.live, 'deliverable.sg@example.com')).decision, 'suppress');
  const soft = await h.backend.feedback.address(a.accountId, 'soft.sg@example.com');
  assert.equal(soft.history?.softBounces?.count, 1);
});

test('Mailgun: HMAC-signed events (documented failed and delivered payloads) are recorded; a wrong signature is refused', async () => {
  const a = await h.newAccount(5);
  const token = await createSourceToken(h.backend.feedback, a.accountId, 'mailgun', new Date());
  const path = `/feedback/mailgun/${token}`;
  const key = 'key-f4b7c3a1e2d94c8b9a6f5e4d3c2b1a09';
  await h.backend.feedback.setVerifyKey({ accountId: a.accountId, source: 'mailgun', verifyKey: key, now: new Date() });
  const signed = (eventData: object) => {
    const timestamp = String(Math.floor(Date.now() / 1000));
    const tokenValue = 'a8ce0edb2dd8301dee6c2405235584e45aa91d1e9f979f3de0';
    return JSON.stringify({ signature: { timestamp, token: tokenValue, signature: createHmac('sha256', key).update(timestamp + tokenValue).digest('hex') }, 'event-data': eventData });
  };
  const failed = {
    event: 'failed',
    id: 'G9Bn5sl1TC6nu79C8C0bwg',
    timestamp: Date.now() / 1000,
    severity: 'permanent',
    reason: 'bounce',
    recipient: 'crash.mg@example.com',
    'delivery-status': { code: 550, message: '5.1.1 The email account that you tried to reach does not exist.', 'attempt-no': 1, description: '' },
    message: { headers: { to: 'crash.mg@example.com', 'message-id': '20130503192659.13651.20287@mg.example.com', from: 'Bob <bob@mg.example.com>', subject: 'Test permanent_fail webhook' } },
  };
  const r = await post(path, signed(failed), { 'content-type': 'application/json' });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.equal(r.body.recorded, 1);
  const delivered = { event: 'delivered', id: 'CPgfbmQMTCKtHW6uIWtuVe', timestamp: Date.now() / 1000, recipient: 'catchall.mg@example.com', 'delivery-status': { code: 250, message: 'OK' } };
  assert.equal((await post(path, signed(delivered), { 'content-type': 'application/json' })).body.recorded, 1);
  const bad = JSON.parse(signed(delivered)) as { signature: { signature: string } };
  bad.signature.signature = '0'.repeat(64);
  assert.equal((await post(path, JSON.stringify(bad), { 'content-type': 'application/json' })).status, 401);
  assert.equal((await verdictOf(a.live, 'crash.mg@example.com')).verdict, 'UNDELIVERABLE_BOUNCED');
  assert.equal((await h.backend.feedback.address(a.accountId, 'crash.mg@example.com')).history?.lastHardBounce?.code, '5.1.1');
  assert.equal((await verdictOf(a.live, 'catchall.mg@example.com')).verdict, 'DELIVERABLE');
});

test('a delivery signed longer ago than PRESEND_FEEDBACK_SIGNATURE_MAX_AGE_S (3600 s) is refused as a replay, for each provider that signs a time', async () => {
  const a = await h.newAccount(5);
  const nowS = Math.floor(Date.now() / 1000);
  // 3500 s off is inside the window; 3700 s behind or ahead is not.
  const cases: Array<[string, number, number]> = [
    ['inside', nowS - 3500, 200],
    ['old', nowS - 3700, 401],
    ['ahead', nowS + 3700, 401],
  ];

  // SendGrid: the documented bounce event, signed over the old timestamp header and the body.
  const sgPath = `/feedback/sendgrid/${await createSourceToken(h.backend.feedback, a.accountId, 'sendgrid', new Date())}`;
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  await h.backend.feedback.setVerifyKey({ accountId: a.accountId, source: 'sendgrid', verifyKey: publicKey.export({ format: 'der', type: 'spki' }).toString('base64'), now: new Date() });
  for (const [label, at, status] of cases) {
    const body = JSON.stringify([{ email: `${label}.sg.replay@example.com`, timestamp: at, event: 'bounce', sg_event_id: `replay-${label}`, sg_message_id: 'm', reason: '500 unknown recipient', status: '5.0.0', type: 'bounce' }]);
    const signature = sign('sha256', Buffer.from(String(at) + body), { key: privateKey, dsaEncoding: 'der' }).toString('base64');
    const r = await post(sgPath, body, { 'content-type': 'application/json', 'x-twilio-email-event-webhook-signature': signature, 'x-twilio-email-event-webhook-timestamp': String(at) });
    assert.equal(r.status, status, `SendGrid ${label}: ${JSON.stringify(r.body)}`);
    if (status === 401) assert.match(r.body.error.message, /SendGrid delivery was signed at .* more than the 3600 s allowed/);
  }

  // Mailgun: the documented failed event, its HMAC over the old signature.timestamp and the token.
  const mgPath = `/feedback/mailgun/${await createSourceToken(h.backend.feedback, a.accountId, 'mailgun', new Date())}`;
  const mgKey = 'key-0a1b2c3d4e5f60718293a4b5c6d7e8f9';
  await h.backend.feedback.setVerifyKey({ accountId: a.accountId, source: 'mailgun', verifyKey: mgKey, now: new Date() });
  for (const [label, at, status] of cases) {
    const tokenValue = `a8ce0edb2dd8301dee6c2405235584e45aa91d1e9f979f3de0${label}`;
    const eventData = { event: 'failed', id: `replay-${label}`, timestamp: at, severity: 'permanent', reason: 'bounce', recipient: `${label}.mg.replay@example.com`, 'delivery-status': { code: 550, message: '5.1.1 The email account that you tried to reach does not exist.' } };
    const body = JSON.stringify({ signature: { timestamp: String(at), token: tokenValue, signature: createHmac('sha256', mgKey).update(String(at) + tokenValue).digest('hex') }, 'event-data': eventData });
    const r = await post(mgPath, body, { 'content-type': 'application/json' });
    assert.equal(r.status, status, `Mailgun ${label}: ${JSON.stringify(r.body)}`);
    if (status === 401) assert.match(r.body.error.message, /Mailgun delivery was signed at/);
  }

  // SES through SNS: the documented bounce notification, its signed Timestamp old.
  const snsPath = `/feedback/ses/${await createSourceToken(h.backend.feedback, a.accountId, 'ses', new Date())}`;
  for (const [label, at, status] of cases) {
    const bounce = { notificationType: 'Bounce', bounce: { feedbackId: `replay-${label}`, bounceType: 'Permanent', bouncedRecipients: [{ emailAddress: `${label}.ses.replay@example.com`, status: '5.1.1' }], timestamp: new Date(at * 1000).toISOString() }, mail: { messageId: 'm' } };
    const message = signedSns({ Type: 'Notification', MessageId: `replay-${label}`, TopicArn: TOPIC, Message: JSON.stringify(bounce), Timestamp: new Date(at * 1000).toISOString() });
    const r = await post(snsPath, JSON.stringify(message));
    assert.equal(r.status, status, `SNS ${label}: ${JSON.stringify(r.body)}`);
    if (status === 401) assert.match(r.body.error.message, /SNS delivery was signed at/);
  }

  // Nothing of a refused delivery was taken; each refusal is shown on its source.
  for (const provider of ['sg', 'mg', 'ses']) {
    assert.notEqual((await h.backend.feedback.address(a.accountId, `inside.${provider}.replay@example.com`)).history, null, provider);
    assert.equal((await h.backend.feedback.address(a.accountId, `old.${provider}.replay@example.com`)).history, null, provider);
    assert.equal((await h.backend.feedback.address(a.accountId, `ahead.${provider}.replay@example.com`)).history, null, provider);
  }
  const sources = await h.backend.feedback.sources(a.accountId);
  assert.deepEqual(sources.map((s) => [s.source, s.events, s.errors]), [['mailgun', 1, 2], ['sendgrid', 1, 2], ['ses', 1, 2]]);
});

test('Postmark: bounce, delivery and complaint records (documented examples); basic auth refused when wrong once set', async () => {
  const a = await h.newAccount(5);
  const token = await createSourceToken(h.backend.feedback, a.accountId, 'postmark', new Date());
  const path = `/feedback/postmark/${token}`;
  const bounce = {
    RecordType: 'Bounce',
    MessageStream: 'outbound',
    ID: 0, // 4323372036854775807 in the documentation: written into the body below, as Postmark sends it
    Type: 'HardBounce',
    TypeCode: 1,
    Name: 'Hard bounce',
    Tag: 'Test',
    MessageID: '883953f4-6105-42a2-a16a-77a8eac79483',
    ServerID: 23,
    Description: 'The server was unable to deliver your message (ex: unknown user, mailbox not found).',
    Details: 'Test bounce details',
    Email: 'crash.pm@example.com',
    From: 'sender@example.com',
    BouncedAt: new Date().toISOString(),
    DumpAvailable: true,
    Inactive: true,
    CanActivate: true,
    Subject: 'Test subject',
  };
  const delivery = { RecordType: 'Delivery', ServerID: 23, MessageStream: 'outbound', MessageID: '00000000-0000-0000-0000-000000000000', Recipient: 'catchall.pm@example.com', Tag: 'welcome-email', DeliveredAt: new Date().toISOString(), Details: 'Test delivery webhook details' };
  const complaint = { RecordType: 'SpamComplaint', MessageStream: 'outbound', ID: 42, Type: 'SpamComplaint', TypeCode: 512, Email: 'deliverable.pm@example.com', BouncedAt: new Date().toISOString() };
  const bodyOf = (record: object) => JSON.stringify(record).replace('"ID":0,', '"ID":4323372036854775807,');
  for (const record of [bounce, delivery, complaint]) {
    const r = await post(path, bodyOf(record), { 'content-type': 'application/json' });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.recorded, 1);
  }
  assert.equal((await verdictOf(a.live, 'crash.pm@example.com')).verdict, 'UNDELIVERABLE_BOUNCED');
  assert.equal((await verdictOf(a.live, 'catchall.pm@example.com')).verdict, 'DELIVERABLE');
  assert.equal((await verdictOf(a.live, 'deliverable.pm@example.com')).decision, 'suppress');
  await h.backend.feedback.setVerifyKey({ accountId: a.accountId, source: 'postmark', verifyKey: 'presend:s3cret', now: new Date() });
  // Another bounce whose ID differs from the first only past 2^53: a different event all the same.
  const again = { ...bounce, ID: 0, Email: 'crash.pm2@example.com', MessageID: '9a7c1f2e-3b4d-4e5f-8a9b-0c1d2e3f4a5b' };
  assert.equal((await post(path, JSON.stringify(again), { 'content-type': 'application/json' })).status, 401);
  assert.equal((await post(path, JSON.stringify(again), { 'content-type': 'application/json', authorization: `Basic ${Buffer.from('presend:wrong').toString('base64')}` })).status, 401);
  const authed = await post(path, bodyOf(again).replace('4323372036854775807', '4323372036854775806'), { 'content-type': 'application/json', authorization: `Basic ${Buffer.from('presend:s3cret').toString('base64')}` });
  assert.equal(authed.status, 200);
  assert.equal(authed.body.recorded, 1);
});

test("an unknown token, or a token used on another source's path, is 404; a token is another account's never", async () => {
  const a = await h.newAccount(1);
  const token = await createSourceToken(h.backend.feedback, a.accountId, 'postmark', new Date());
  assert.equal((await post(`/feedback/postmark/fb_${'x'.repeat(40)}`, '{}')).status, 404);
  assert.equal((await post(`/feedback/sendgrid/${token}`, '[]')).status, 404);
  assert.equal((await post(`/feedback/nosuch/${token}`, '{}')).status, 404);
  // A new token replaces the old one.
  await createSourceToken(h.backend.feedback, a.accountId, 'postmark', new Date());
  assert.equal((await post(`/feedback/postmark/${token}`, JSON.stringify({ RecordType: 'Open' }))).status, 404);
});
