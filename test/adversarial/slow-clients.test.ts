import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness, newIdem } from '../api/harness.js';
import type { Harness } from '../api/harness.js';
import { assertSpecAnswer } from './raw-http.js';
import { rawRequest } from './raw-http.js';
import { slowClient, slowHeaders } from './slow-client.js';
import type { SlowClient } from './slow-client.js';
import { until } from '../until.js';
import { clientKey } from '../../src/api/connection-caps.js';
import { once } from 'node:events';

/**
 * Slow clients (slowloris): a request whose body never finishes must not hold a connection,
 * and up to 4 MiB of buffered body, for ever. The service gets a 1 s request deadline here
 * (60 s by default); the deadline covers receiving the request, never the wait of /v1/verify.
 */
const REQUEST_TIMEOUT_MS = 1000;

// Three hundred stalled connections at once: a bounded-load test, in test/load/stalled-connections.load.ts.
describe('slow clients', () => {
  let h: Harness;
  let key = '';
  before(async () => {
    h = await startHarness({ server: { requestTimeoutMs: REQUEST_TIMEOUT_MS } });
    key = (await h.newAccount(100)).test;
  });
  after(async () => h?.close());

  test('a body that stops arriving is answered 400 with the error body and the connection is closed', async () => {
    const answer = await slowClient(h.url, key, null).answer;
    assert.ok(answer.endedByServer, 'the server never ended the stalled request');
    assertSpecAnswer('framing', answer, 'stalled body');
  });

  test('a body trickled a byte every 100 ms is cut off too: the deadline is for the whole request, not the gaps', async () => {
    const answer = await slowClient(h.url, key, 100).answer;
    assert.ok(answer.endedByServer, 'the server never ended the trickled request');
    assertSpecAnswer('framing', answer, 'trickled body');
  });

  test('a complete request may wait longer than the deadline for its answer', async () => {
    // slow@ takes 1.5 s in the test engines: longer than the 1 s request deadline.
    const r = await h.call('POST', '/v1/verify', { key, idem: newIdem(), body: { email: 'slow@example.com', timeoutMs: 5000 } });
    assert.equal(r.status, 200);
    assert.equal(r.body.status, 'completed');
  });

});

/**
 * Issue 21, defect 6: ~20,000 slow-header connections from two addresses reached the process's
 * file limit, and every new client was reset. Now a cap per client address and one overall,
 * kept at the socket: slow-header clients of one address (127.0.0.2; Linux routes all of
 * 127.0.0.0/8 to loopback) use up only that address's share, and the process's total is held.
 */
describe('connection caps', () => {
  const PER_CLIENT = 4;
  const TOTAL = 10;
  let h: Harness;
  const held: SlowClient[] = [];
  before(async () => {
    // The headers deadline stays long (60 s): only the caps stop these clients here.
    h = await startHarness({ env: { PRESEND_MAX_CONNECTIONS: String(TOTAL), PRESEND_MAX_CONNECTIONS_PER_CLIENT: String(PER_CLIENT) } });
  });
  after(async () => {
    for (const client of held) client.socket.destroy();
    await h?.close();
  });

  const openConnections = () => new Promise<number>((resolve, reject) => h.server.app.server.getConnections((error, count) => (error ? reject(error) : resolve(count))));
  const connectionsAre = (n: number) => until(`${n} open connections`, async () => ((await openConnections()) === n ? true : null));
  const stall = async (from: string, n: number): Promise<SlowClient[]> => {
    const clients = Array.from({ length: n }, () => slowHeaders(h.url, from));
    await Promise.all(clients.map((c) => once(c.socket, 'connect')));
    held.push(...clients);
    return clients;
  };
  const healthz = (from: string) => rawRequest(h.url, 'GET', '/healthz', {}, undefined, from);
  const release = async (clients: SlowClient[]) => {
    for (const client of clients) client.socket.destroy();
    await Promise.all(clients.map((c) => c.answer));
  };

  test('slow-header clients of one address exhaust only its share: its next connection is answered 503, another address is served', async () => {
    const first = await stall('127.0.0.2', PER_CLIENT);
    await connectionsAre(PER_CLIENT);
    const probe = slowHeaders(h.url, '127.0.0.2');
    // Without a cap nothing would answer it: given up after a while, it counts as not ended by the server.
    const giveUp = setTimeout(() => probe.socket.destroy(), 15_000);
    const refused = await probe.answer;
    clearTimeout(giveUp);
    assert.ok(refused.endedByServer, 'the connection past the cap is answered and closed');
    assert.equal(refused.status, 503);
    assert.equal(refused.headers['retry-after'], '1');
    assert.equal((JSON.parse(refused.text) as { error: { code: string } }).error.code, 'service_unavailable');
    assert.equal((await healthz('127.0.0.3')).status, 200, 'another address is answered');
    await release(first);
    await connectionsAre(0);
    assert.equal((await healthz('127.0.0.2')).status, 200, 'the address gets its room back as its connections close');
  });

  test('the total is held too: past it a new connection is closed at once, whatever its address, until others close', async () => {
    const groups = [await stall('127.0.0.2', PER_CLIENT), await stall('127.0.0.3', PER_CLIENT), await stall('127.0.0.4', TOTAL - 2 * PER_CLIENT)];
    await connectionsAre(TOTAL);
    await assert.rejects(healthz('127.0.0.5'), 'no answer past the total');
    await release(groups[0] ?? []);
    await connectionsAre(TOTAL - PER_CLIENT);
    assert.equal((await healthz('127.0.0.5')).status, 200);
    for (const group of groups) await release(group);
  });

  test('a client is its IPv4 address (also written IPv4-mapped) or its IPv6 /64, the block one subscriber is given', () => {
    assert.equal(clientKey('203.0.113.7'), '203.0.113.7');
    assert.equal(clientKey('::ffff:203.0.113.7'), '203.0.113.7');
    assert.equal(clientKey('2001:db8:1:2:aaaa::1'), '2001:db8:1:2::/64');
    assert.equal(clientKey('2001:0db8:0001:0002:ffff:ffff:ffff:ffff'), '2001:db8:1:2::/64');
    assert.equal(clientKey('2001:db8::1'), '2001:db8:0:0::/64');
    assert.equal(clientKey('::1'), '0:0:0:0::/64');
  });
});
