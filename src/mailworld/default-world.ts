/**
 * defaultWorld(): a ready-made world with one domain (or address) for every row of docs/design.md
 * §5 that DNS and SMTP can produce, and for every hostile behaviour. Reserved names (.test,
 * RFC 2606) except where a real name is the point: provider MX names (provider_family) and a
 * domain on the disposable list.
 */
import type { DomainSpec, MxHostSpec, WorldSpec } from './spec.js';

export interface WorldSample {
  email: string;
  /** What the address exercises, in a few words. */
  about: string;
}

export type DefaultWorld = WorldSpec & { samples: WorldSample[] };

/** Number of MX records of big-mx.test: far beyond 512 bytes, so UDP answers are truncated. */
export const BIG_MX_COUNT = 2000;

function singleMx(name: string, host: string, mailboxes: DomainSpec['mailboxes'] = { alice: 'accept' }): DomainSpec {
  return { name, mx: [{ host, preference: 10 }], mailboxes };
}

const HOSTS: MxHostSpec[] = [
  { name: 'mx1.acme.test', starttls: true, greeting: 'mx1.acme.test' },
  { name: 'mx2.acme.test' },
  { name: 'mx.catchall.test' },
  { name: 'mta5.am0.yahoodns.net', webmailAcceptAll: true, greeting: 'mta5.am0.yahoodns.net' },
  { name: 'aspmx.l.google.com', starttls: true, greeting: 'mx.google.com' },
  { name: 'a-only.test' },
  { name: 'mx.busy.test', maxConnections: 1 },
  { name: 'mx.tarpit.test', behaviour: { kind: 'tarpit' } },
  { name: 'mx.refused.test', behaviour: { kind: 'refuse' } },
  { name: 'mx.slow.test', behaviour: { kind: 'slow_banner', delayMs: 1500 } },
  { name: 'mx.trickle.test', behaviour: { kind: 'trickle_banner', bytesPerSecond: 40 } },
  { name: 'mx.drop.test', behaviour: { kind: 'drop_after', command: 'RCPT' } },
  { name: 'mx.blockconnect.test', behaviour: { kind: 'block_on_connect' } },
  { name: 'mx.endless.test', behaviour: { kind: 'endless_multiline' } },
  { name: 'mx.huge.test', behaviour: { kind: 'huge_reply', bytes: 4 * 1024 * 1024 } },
  { name: 'mx.garbled.test', behaviour: { kind: 'invalid_reply_codes' } },
  { name: 'mx.tlsfail.test', behaviour: { kind: 'tls_fail' } },
  { name: 'mx.ipv6-loopback.test', ip: '::1' },
  { name: 'mx0000.big-mx.test' },
  { name: 'mail.mailinator.com' },
  { name: 'mx.legacy.test', smtputf8: false, pipelining: false },
];

const DOMAINS: DomainSpec[] = [
  {
    name: 'acme.test',
    mx: [
      { host: 'mx1.acme.test', preference: 10 },
      { host: 'mx2.acme.test', preference: 20 },
    ],
    mailboxes: {
      alice: 'accept',
      'bob.smith': 'accept',
      info: 'accept',
      sales: 'accept',
      'former.employee': 'disabled',
      'full.inbox': 'full',
      'over.quota': 'full_permanent',
      'grey.listed': 'greylist',
      'blocked.probe': 'policy_block',
      'temp.failure': 'temp_fail',
      spamtrap: 'accept',
      'josé': 'accept',
    },
    greylistMs: 1000,
  },
  { name: 'catchall.test', mx: [{ host: 'mx.catchall.test', preference: 10 }], mailboxes: { ceo: 'accept' }, otherMailboxes: 'accept' },
  { name: 'ymail-like.test', mx: [{ host: 'mta5.am0.yahoodns.net', preference: 1 }] },
  singleMx('google-hosted.test', 'aspmx.l.google.com', { jane: 'accept' }),
  { name: 'a-only.test', mailboxes: { john: 'accept', postmaster: 'accept' } },
  { name: 'nullmx.test', nullMx: true },
  { name: 'no-mail.test' },
  { name: 'gone.test', dns: 'nxdomain' },
  { name: 'servfail.test', dns: 'servfail' },
  { name: 'dns-timeout.test', dns: 'timeout' },
  { name: 'alias.test', cname: 'acme.test', mailboxes: { alice: 'accept' } },
  { name: 'cname-loop.test', cname: 'cname-loop-2.test' },
  {
    name: 'backup-mx.test',
    mx: [
      { host: 'mx.refused.test', preference: 10 },
      { host: 'mx2.acme.test', preference: 20 },
    ],
    mailboxes: { alice: 'accept' },
  },
  singleMx('busy.test', 'mx.busy.test'),
  singleMx('tarpit.test', 'mx.tarpit.test'),
  singleMx('refused.test', 'mx.refused.test'),
  singleMx('slow.test', 'mx.slow.test'),
  singleMx('trickle.test', 'mx.trickle.test'),
  singleMx('dropped.test', 'mx.drop.test'),
  singleMx('blocked-connect.test', 'mx.blockconnect.test'),
  singleMx('endless.test', 'mx.endless.test'),
  singleMx('huge.test', 'mx.huge.test'),
  singleMx('garbled.test', 'mx.garbled.test'),
  singleMx('tls-broken.test', 'mx.tlsfail.test'),
  singleMx('private-mx.test', 'mx.private.test'),
  singleMx('linklocal-mx.test', 'mx.linklocal.test'),
  singleMx('ipv6-loopback-mx.test', 'mx.ipv6-loopback.test'),
  singleMx('loopback-unserved.test', 'mx.loopback-unserved.test'),
  singleMx('dangling-mx.test', 'mx.nowhere.test'),
  singleMx('legacy.test', 'mx.legacy.test', { alice: 'accept', 'josé': 'accept' }),
  { name: 'mailinator.com', mx: [{ host: 'mail.mailinator.com', preference: 10 }], otherMailboxes: 'accept' },
  {
    name: 'big-mx.test',
    mx: Array.from({ length: BIG_MX_COUNT }, (_, i) => ({ host: `mx${String(i).padStart(4, '0')}.big-mx.test`, preference: i })),
    mailboxes: { alice: 'accept' },
  },
];

const SAMPLES: WorldSample[] = [
  { email: 'alice@acme.test', about: 'mailbox exists' },
  { email: 'bob.smith@acme.test', about: 'mailbox exists' },
  { email: 'nobody@acme.test', about: '550 5.1.1 user unknown' },
  { email: 'former.employee@acme.test', about: '550 5.2.1 mailbox disabled' },
  { email: 'info@acme.test', about: 'role account that exists' },
  { email: 'full.inbox@acme.test', about: '452 4.2.2 mailbox full' },
  { email: 'over.quota@acme.test', about: '552 5.2.2 over quota' },
  { email: 'grey.listed@acme.test', about: '450 4.7.1 greylisted for 1 s, then accepted' },
  { email: 'blocked.probe@acme.test', about: '554 5.7.1 Spamhaus block at RCPT' },
  { email: 'temp.failure@acme.test', about: '451 4.3.0 temporary failure' },
  { email: 'josé@acme.test', about: 'non-ASCII local part, server offers SMTPUTF8' },
  { email: 'josé@legacy.test', about: 'non-ASCII local part, server without SMTPUTF8' },
  { email: 'alice@legacy.test', about: 'server without PIPELINING or SMTPUTF8' },
  { email: 'spamtrap@acme.test', about: 'trap-like local part (accepted by the server)' },
  { email: 'anyone@catchall.test', about: 'catch-all domain' },
  { email: 'throwaway@mailinator.com', about: 'disposable domain (list), served by a catch-all host' },
  { email: 'someone@ymail-like.test', about: 'Yahoo-like webmail accepting every RCPT' },
  { email: 'jane@google-hosted.test', about: 'MX aspmx.l.google.com (provider google)' },
  { email: 'john@a-only.test', about: 'no MX, implicit MX from the A record' },
  { email: 'alice@alias.test', about: 'domain is a CNAME to acme.test' },
  { email: 'alice@backup-mx.test', about: 'first MX refuses, second answers' },
  { email: 'alice@big-mx.test', about: `${BIG_MX_COUNT} MX records, answer only over TCP` },
  { email: 'alice@busy.test', about: 'maxConnections 1: a second session gets 421' },
  { email: 'x@nullmx.test', about: 'null MX (RFC 7505)' },
  { email: 'x@no-mail.test', about: 'no MX and no A' },
  { email: 'alice@dangling-mx.test', about: 'MX name without an address' },
  { email: 'x@gone.test', about: 'NXDOMAIN' },
  { email: 'x@servfail.test', about: 'DNS SERVFAIL' },
  { email: 'x@dns-timeout.test', about: 'DNS never answers' },
  { email: 'x@cname-loop.test', about: 'CNAME loop (SERVFAIL)' },
  { email: 'alice@tarpit.test', about: 'accepts TCP, never sends a banner' },
  { email: 'alice@refused.test', about: 'connection refused' },
  { email: 'alice@slow.test', about: 'banner after 1.5 s' },
  { email: 'alice@trickle.test', about: 'banner at 40 bytes/s' },
  { email: 'alice@dropped.test', about: 'drops the connection at RCPT' },
  { email: 'alice@blocked-connect.test', about: '554 5.7.1 banner' },
  { email: 'alice@endless.test', about: 'EHLO reply that never ends' },
  { email: 'alice@huge.test', about: '4 MiB EHLO reply' },
  { email: 'alice@garbled.test', about: 'invalid reply codes' },
  { email: 'alice@tls-broken.test', about: 'STARTTLS answered with garbage' },
  { email: 'alice@private-mx.test', about: 'MX published at 127.255.255.252, no server there (as a private address would be)' },
  { email: 'alice@linklocal-mx.test', about: 'MX published at 127.255.255.251, no server there (as a link-local address would be)' },
  { email: 'alice@ipv6-loopback-mx.test', about: 'MX on ::1 only' },
  { email: 'alice@loopback-unserved.test', about: 'MX on a 127.x address where nothing listens' },
];

export function defaultWorld(): DefaultWorld {
  return {
    hosts: structuredClone(HOSTS),
    domains: structuredClone(DOMAINS),
    names: [
      { name: 'cname-loop-2.test', cname: 'cname-loop.test' },
      { name: 'mx.loopback-unserved.test', a: ['127.255.255.254'] },
      // MX hosts only published, never served: what an MX on a private or link-local address
      // is from here. Loopback addresses, so PRESEND_ALLOW_PRIVATE_MX=loopback (what
      // `presend mailworld` prints) lets the engine try them; a refusal of private addresses is
      // tested with worlds of their own (test/core/address-safety.test.ts).
      { name: 'mx.private.test', a: ['127.255.255.252'] },
      { name: 'mx.linklocal.test', a: ['127.255.255.251'] },
      ...Array.from({ length: BIG_MX_COUNT - 1 }, (_, i) => ({ name: `mx${String(i + 1).padStart(4, '0')}.big-mx.test`, a: ['127.255.255.253'] })),
    ],
    samples: structuredClone(SAMPLES),
  };
}
