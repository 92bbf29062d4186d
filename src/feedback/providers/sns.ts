/**
 * Amazon SNS messages, as SNS posts them to an HTTPS subscriber (SES sends its bounce, complaint
 * and delivery notifications through SNS). Every message is signed: the signature covers the
 * fields AWS lists per message type, in that order, each as "Name\nvalue\n", with RSA and SHA1
 * (SignatureVersion 1) or SHA256 (2), checked against the certificate at SigningCertURL — which
 * must be an https URL on an `sns.<region>.amazonaws.com` host, else anyone could sign with their
 * own certificate. https://docs.aws.amazon.com/sns/latest/dg/sns-verify-signature-of-message.html
 */
import { createVerify } from 'node:crypto';
import { isObject } from './provider-events.js';

export interface SnsMessage {
  Type: 'Notification' | 'SubscriptionConfirmation' | 'UnsubscribeConfirmation';
  MessageId: string;
  TopicArn: string;
  Message: string;
  Timestamp: string;
  SignatureVersion: string;
  Signature: string;
  SigningCertURL: string;
  Subject?: string;
  SubscribeURL?: string;
  Token?: string;
}

/** Fetches the PEM certificate at an SNS SigningCertURL (pluggable: tests hand in a local one). */
export type CertificateFetch = (url: string) => Promise<string>;

const SNS_HOST = /^sns\.[a-z0-9-]+\.amazonaws\.com(\.cn)?$/;

export function isSnsUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return url.protocol === 'https:' && SNS_HOST.test(url.hostname);
  } catch {
    return false;
  }
}

export function readSnsMessage(body: unknown): SnsMessage | null {
  if (!isObject(body)) return null;
  const text = (k: string): boolean => typeof body[k] === 'string';
  if (!['Notification', 'SubscriptionConfirmation', 'UnsubscribeConfirmation'].includes(body.Type as string)) return null;
  if (!['MessageId', 'TopicArn', 'Message', 'Timestamp', 'SignatureVersion', 'Signature', 'SigningCertURL'].every(text)) return null;
  return body as unknown as SnsMessage;
}

/** The text SNS signed (the field list of the AWS documentation). */
export function snsStringToSign(m: SnsMessage): string {
  const fields: Array<keyof SnsMessage> =
    m.Type === 'Notification'
      ? ['Message', 'MessageId', ...(m.Subject !== undefined ? (['Subject'] as const) : []), 'Timestamp', 'TopicArn', 'Type']
      : ['Message', 'MessageId', 'SubscribeURL', 'Timestamp', 'Token', 'TopicArn', 'Type'];
  return fields.map((f) => `${f}\n${m[f] ?? ''}\n`).join('');
}

/** Null when the signature verifies; else why not. */
export async function snsSignatureProblem(m: SnsMessage, fetchCertificate: CertificateFetch): Promise<string | null> {
  if (m.SignatureVersion !== '1' && m.SignatureVersion !== '2') return `unknown SNS SignatureVersion ${m.SignatureVersion}`;
  if (!isSnsUrl(m.SigningCertURL) || !new URL(m.SigningCertURL).pathname.endsWith('.pem')) return 'the SigningCertURL is not an SNS certificate URL';
  let certificate: string;
  try {
    certificate = await fetchCertificate(m.SigningCertURL);
  } catch (err) {
    return `the SNS certificate could not be fetched (${(err as Error).message})`;
  }
  try {
    const ok = createVerify(m.SignatureVersion === '2' ? 'RSA-SHA256' : 'RSA-SHA1')
      .update(snsStringToSign(m), 'utf8')
      .verify(certificate, m.Signature, 'base64');
    return ok ? null : 'the SNS signature does not verify';
  } catch (err) {
    return `the SNS signature could not be checked (${(err as Error).message})`;
  }
}

/** Certificates kept by URL: SNS signs with a handful of them, and each message would otherwise fetch one. */
const CERTIFICATES_KEPT = 32;
const certificates = new Map<string, Promise<string>>();

/** The default certificate fetch: https only, a short timeout, a bounded body, kept once fetched (a failure is not kept). */
export const fetchSnsCertificate: CertificateFetch = (url) => {
  const known = certificates.get(url);
  if (known) return known;
  const fetching = (async () => {
    if (!isSnsUrl(url)) throw new Error('not an SNS URL');
    const res = await fetch(url, { signal: AbortSignal.timeout(5_000), redirect: 'error' });
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    const text = await res.text();
    if (text.length > 16_384 || !text.includes('BEGIN CERTIFICATE')) throw new Error('not a PEM certificate');
    return text;
  })();
  if (certificates.size >= CERTIFICATES_KEPT) certificates.delete(certificates.keys().next().value as string);
  certificates.set(url, fetching);
  fetching.catch(() => certificates.delete(url));
  return fetching;
};
