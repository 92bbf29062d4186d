import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import type { Socket } from 'node:net';
import { once } from 'node:events';
import { startHarness, newIdem } from '../api/harness.js';
import type { Harness } from '../api/harness.js';
import { assertSpecAnswer, parseRaw, rawRequest } from './raw-http.js';
import type { RawAnswer } from './raw-http.js';

/**
 * Slow clients (slowloris): a request whose body never finishes must not hold a connection,
 * and up to 4 MiB of buffered body, for ever. The service gets a 1 s request deadline here
 * (60 s by default); the deadline covers receiving the request, never the wait of /v1/verify.
 */
const REQUEST_TIMEOUT_MS = 1000;
/** Generous bound on "the server ended it": many deadlines plus Node's checking interval. */
const ENDED_WITHIN_MS = 15_000;

interface SlowClient {
  socket: Socket;
  answer: Promise<RawAnswer & { endedByServer: boolean }>;
}

/** Sends the head and the first bytes of a body it never finishes; `trickleMs` keeps it busy. */
function slowClient(url: string, key: string, trickleMs: number | null): SlowClient {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  const chunks: Buffer[] = [];
  socket.on('data', (c: Buffer) => chunks.push(c));
  socket.on('error', () => undefined);
  let timer: NodeJS.Timeout | undefined;
  socket.once('connect', () => {
    socket.write(`POST /v1/verify HTTP/1.1\r\nhost: ${hostname}\r\nx-api-key: ${key}\r\nidempotency-key: ${newIdem()}\r\ncontent-type: application/json\r\ncontent-length: 100000\r\n\r\n{"email":"`);
    if (trickleMs !== null) timer = setInterval(() => socket.write('a'), trickleMs);
  });
  const answer = new Promise<RawAnswer & { endedByServer: boolean }>((resolve) => {
    const guard = setTimeout(() => socket.destroy(), ENDED_WITHIN_MS);
    socket.once('close', () => {
      clearTimeout(guard);
      clearInterval(timer);
      resolve({ ...parseRaw(Buffer.concat(chunks)), endedByServer: chunks.length > 0 });
    });
  });
  return { socket, answer };
}

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

  test('three hundred stalled connections do not starve other clients, and all of them are ended by the server', async () => {
    const stalled = Array.from({ length: 300 }, () => slowClient(h.url, key, null));
    await Promise.all(stalled.map((c) => once(c.socket, 'connect')));
    const others = await Promise.all(Array.from({ length: 20 }, () => rawRequest(h.url, 'GET', '/v1/requests/00000000-0000-4000-8000-000000000000', { 'x-api-key': key })));
    for (const r of others) assert.equal(r.status, 404);
    const answers = await Promise.all(stalled.map((c) => c.answer));
    assert.equal(answers.filter((a) => a.endedByServer).length, 300);
  });
});
