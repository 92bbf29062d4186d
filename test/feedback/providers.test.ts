/**
 * The providers' readers, pure: which certificate URLs are SNS's, the string SNS signs per message
 * type (AWS's field lists), and the default certificate fetch refusing anything off AWS before any
 * connection.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fetchSnsCertificate, isSnsUrl, snsStringToSign } from '../../src/feedback/providers/sns.js';
import type { SnsMessage } from '../../src/feedback/providers/sns.js';
import { readSesNotification } from '../../src/feedback/providers/ses.js';

test('only https URLs on sns.<region>.amazonaws.com are SNS certificate URLs', () => {
  const cases: Array<[string, boolean]> = [
    ['https://sns.us-east-1.amazonaws.com/SimpleNotificationService-abc.pem', true],
    ['https://sns.cn-north-1.amazonaws.com.cn/SimpleNotificationService-abc.pem', true],
    ['http://sns.us-east-1.amazonaws.com/SimpleNotificationService-abc.pem', false],
    ['https://sns.us-east-1.amazonaws.com.evil.example/x.pem', false],
    ['https://evil.example/sns.us-east-1.amazonaws.com/x.pem', false],
    ['https://s3.amazonaws.com/x.pem', false],
    ['not a url', false],
  ];
  for (const [url, ok] of cases) assert.equal(isSnsUrl(url), ok, url);
});

test('the default certificate fetch refuses a URL off AWS without connecting', async () => {
  await assert.rejects(fetchSnsCertificate('https://127.0.0.1/cert.pem'), /not an SNS URL/);
});

test('the string SNS signs: Subject only when present; a confirmation signs its SubscribeURL and Token', () => {
  const base = { MessageId: 'm', TopicArn: 't', Message: 'hello', Timestamp: 'ts', SignatureVersion: '1', Signature: '', SigningCertURL: '' };
  assert.equal(snsStringToSign({ ...base, Type: 'Notification' } as SnsMessage), 'Message\nhello\nMessageId\nm\nTimestamp\nts\nTopicArn\nt\nType\nNotification\n');
  assert.equal(snsStringToSign({ ...base, Type: 'Notification', Subject: 's' } as SnsMessage), 'Message\nhello\nMessageId\nm\nSubject\ns\nTimestamp\nts\nTopicArn\nt\nType\nNotification\n');
  assert.equal(
    snsStringToSign({ ...base, Type: 'SubscriptionConfirmation', SubscribeURL: 'u', Token: 'k' } as SnsMessage),
    'Message\nhello\nMessageId\nm\nSubscribeURL\nu\nTimestamp\nts\nToken\nk\nTopicArn\nt\nType\nSubscriptionConfirmation\n',
  );
});

test('SES: a Transient bounce is soft, event publishing (eventType) is read, other notifications are ignored', () => {
  const transient = readSesNotification(JSON.stringify({ eventType: 'Bounce', bounce: { feedbackId: 'f', bounceType: 'Transient', bouncedRecipients: [{ emailAddress: 'a@example.com' }], timestamp: '2026-11-01T00:00:00Z' }, mail: {} }));
  assert.ok(transient.ok);
  assert.deepEqual(transient.events.map((e) => [e.email, e.kind]), [['a@example.com', 'soft_bounce']]);
  const other = readSesNotification(JSON.stringify({ eventType: 'Open', mail: {} }));
  assert.ok(other.ok);
  assert.deepEqual([other.events.length, other.ignored], [0, 1]);
  assert.equal(readSesNotification('not json').ok, false);
});
