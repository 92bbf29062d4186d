/**
 * SSRF: an endpoint URL is its owner's choice, so the sender refuses what the prober refuses —
 * metadata (169.254.169.254), private (10.x) and loopback addresses — unless
 * PRESEND_ALLOW_PRIVATE_WEBHOOKS allows them, judged on the address the socket would connect to.
 * Nothing here sends a packet beyond 127.0.0.1: a refused address is refused before any
 * connection (an IP literal before the lookup, a name inside the lookup the socket waits on).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { checkEndpointUrl } from '../../src/service/webhooks/endpoints.js';
import { postWebhook } from '../../src/service/webhooks/safe-post.js';
import type { ResolveHost } from '../../src/service/webhooks/safe-post.js';
import { startReceiver } from './receiver.js';
import type { Receiver } from './receiver.js';

let receiver: Receiver;
before(async () => {
  receiver = await startReceiver();
});
after(() => receiver.close());

const BODY = '{"type":"webhook.test","timestamp":"2026-01-01T00:00:00.000Z","data":{}}';
const HEADERS = { 'webhook-id': 'msg_test', 'webhook-timestamp': '0', 'webhook-signature': 'v1,AAAA' };

/** A resolver of made-up names that counts its lookups (a test never asks the system's). */
function fakeDns(names: Record<string, string>): { resolve: ResolveHost; lookups: string[] } {
  const lookups: string[] = [];
  return {
    lookups,
    resolve: async (hostname) => {
      lookups.push(hostname);
      const address = names[hostname];
      if (!address) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
      return [{ address, family: address.includes(':') ? 6 : 4 }];
    },
  };
}

test('the metadata address, a private address and their IPv6-mapped forms are refused before any lookup or connection', async () => {
  const dns = fakeDns({});
  for (const url of ['http://169.254.169.254/latest/meta-data/', 'http://10.0.0.5/hooks', 'https://[::ffff:169.254.169.254]/x', 'http://[fd00::1]/x', 'http://0.0.0.0:8080/']) {
    for (const allowPrivate of [false, 'loopback'] as const) {
      const outcome = await postWebhook(url, BODY, HEADERS, { allowPrivate, timeoutMs: 1_000, resolve: dns.resolve });
      assert.equal(outcome.kind, 'no_answer', url);
      assert.equal(outcome.kind === 'no_answer' && outcome.refused, true, url);
      assert.match(outcome.kind === 'no_answer' ? outcome.error : '', /PRESEND_ALLOW_PRIVATE_WEBHOOKS/);
    }
  }
  assert.deepEqual(dns.lookups, []);
});

test('loopback is refused unless allowed: the receiver on 127.0.0.1 sees no connection', async () => {
  const before = receiver.connections;
  const outcome = await postWebhook(`${receiver.url}/refused`, BODY, HEADERS, { allowPrivate: false, timeoutMs: 1_000 });
  assert.equal(outcome.kind === 'no_answer' && outcome.refused, true);
  assert.equal(receiver.connections, before);
  const allowed = await postWebhook(`${receiver.url}/allowed`, BODY, HEADERS, { allowPrivate: 'loopback', timeoutMs: 5_000 });
  assert.deepEqual(allowed.kind === 'answered' && allowed.status, 200);
  assert.equal(receiver.connections, before + 1);
});

test('a name is judged on what it resolves to when the socket connects (a rebinding name is refused as its address is)', async () => {
  const dns = fakeDns({ 'metadata.example.test': '169.254.169.254', 'rebind.example.test': '127.0.0.1', 'inside.example.test': '10.1.2.3' });
  const before = receiver.connections;
  const port = new URL(receiver.url).port;
  for (const host of ['metadata.example.test', 'rebind.example.test', 'inside.example.test']) {
    const outcome = await postWebhook(`http://${host}:${port}/hook`, BODY, HEADERS, { allowPrivate: false, timeoutMs: 1_000, resolve: dns.resolve });
    assert.equal(outcome.kind === 'no_answer' && outcome.refused, true, host);
    assert.match(outcome.kind === 'no_answer' ? outcome.error : '', new RegExp(host.replaceAll('.', '\\.')));
  }
  assert.equal(receiver.connections, before, 'nothing connected');
  assert.deepEqual(dns.lookups, ['metadata.example.test', 'rebind.example.test', 'inside.example.test']);
  // With loopback allowed the same name reaches the receiver; the private one stays refused.
  const reached = await postWebhook(`http://rebind.example.test:${port}/hook`, BODY, HEADERS, { allowPrivate: 'loopback', timeoutMs: 5_000, resolve: dns.resolve });
  assert.equal(reached.kind === 'answered' && reached.status, 200);
  const inside = await postWebhook(`http://inside.example.test:${port}/hook`, BODY, HEADERS, { allowPrivate: 'loopback', timeoutMs: 1_000, resolve: dns.resolve });
  assert.equal(inside.kind === 'no_answer' && inside.refused, true);
});

test('registering an endpoint refuses a private address given outright, other schemes and credentials in the URL', () => {
  assert.equal(checkEndpointUrl('http://169.254.169.254/latest', false).kind, 'refused');
  assert.equal(checkEndpointUrl('http://127.0.0.1:9000/hook', false).kind, 'refused');
  assert.equal(checkEndpointUrl('http://127.0.0.1:9000/hook', 'loopback').kind, 'done');
  assert.equal(checkEndpointUrl('ftp://example.com/x', false).kind, 'refused');
  assert.equal(checkEndpointUrl('https://user:pw@example.com/x', false).kind, 'refused');
  assert.equal(checkEndpointUrl('not a url', false).kind, 'refused');
  // A name is accepted now and judged at each connection.
  assert.deepEqual(checkEndpointUrl('https://hooks.example.com/presend', false), { kind: 'done', value: 'https://hooks.example.com/presend' });
});
