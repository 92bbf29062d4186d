/**
 * Raw HTTP for the adversarial suite: requests the fetch API refuses to send (duplicate
 * headers, invalid UTF-8 bodies, any method, broken framing), each on its own connection so
 * one broken exchange never poisons the next. And the one property every answer must keep:
 * a status the interface lists for the route, the spec's error body, `X-Request-Id`.
 */
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { connect } from 'node:net';
import { once } from 'node:events';
import type { IncomingHttpHeaders } from 'node:http';
import { ErrorBody } from '../../src/api/schemas.js';
import { assertMatches } from '../api/schema-check.js';

export interface RawAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}

export type RawHeaders = Record<string, string | string[]>;

/** One request on a fresh connection (no keep-alive agent), from `localAddress` when given (another client on loopback: 127.0.0.2…). */
export function rawRequest(baseUrl: string, method: string, path: string, headers: RawHeaders = {}, body?: Buffer | string, localAddress?: string): Promise<RawAnswer> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, method, path, headers, agent: false, ...(localAddress ? { localAddress } : {}) }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** Splits what came back on a raw socket into status, headers and body. */
export function parseRaw(bytes: Buffer): RawAnswer {
  const [head = '', ...rest] = bytes.toString('utf8').split('\r\n\r\n');
  const [statusLine = '', ...headerLines] = head.split('\r\n');
  const headers: IncomingHttpHeaders = {};
  for (const line of headerLines) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const body = Buffer.from(rest.join('\r\n\r\n'), 'utf8');
  // Only the first answer counts (a truncated request can draw a second one on the same socket).
  const length = Number(headers['content-length']);
  const text = (Number.isInteger(length) ? body.subarray(0, length) : body).toString('utf8');
  return { status: Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1] ?? 0), headers, text };
}

/**
 * Writes `head`, then `body` in slices, and stops sending as soon as the server has answered
 * (as curl does): a server refusing an oversized body answers and closes early, and a client
 * that kept writing would meet a reset that can discard the answer before it is read.
 */
async function exchange(baseUrl: string, head: Buffer, body: Buffer): Promise<RawAnswer> {
  const url = new URL(baseUrl);
  const socket = connect(Number(url.port), url.hostname);
  await once(socket, 'connect');
  const chunks: Buffer[] = [];
  socket.on('data', (c: Buffer) => chunks.push(c));
  // Writes after the server closed fail with EPIPE or ECONNRESET: what it answered is the answer.
  socket.on('error', () => undefined);
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  const write = (b: Buffer) => new Promise<void>((resolve) => (socket.write(b) ? resolve() : socket.once('drain', resolve).once('close', resolve)));
  await write(head);
  for (let at = 0; at < body.length && chunks.length === 0 && !socket.destroyed; at += 64 * 1024) await write(body.subarray(at, at + 64 * 1024));
  // A client that stops sending: the server answers what it has, then closes.
  socket.end();
  await closed;
  return parseRaw(Buffer.concat(chunks));
}

/** Bytes written straight to a socket, for framing errors no HTTP client would produce. */
export function rawSocket(baseUrl: string, bytes: Buffer | string): Promise<RawAnswer> {
  return exchange(baseUrl, typeof bytes === 'string' ? Buffer.from(bytes, 'utf8') : bytes, Buffer.alloc(0));
}

/** A whole request written by hand on a raw socket (Content-Length set), read back as above. */
export function rawExchange(baseUrl: string, method: string, path: string, headers: Record<string, string>, body: Buffer | string): Promise<RawAnswer> {
  const payload = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  const url = new URL(baseUrl);
  const head = [`${method} ${path} HTTP/1.1`, `host: ${url.host}`, `content-length: ${payload.length}`, ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`)];
  return exchange(baseUrl, Buffer.from(`${head.join('\r\n')}\r\n\r\n`, 'latin1'), payload);
}

/** docs/interface-spec.md §7, per route; the unknown paths and methods answer 404 (docs/design.md: `not_found`). */
export const ROUTE_STATUSES = {
  verify: { success: [200, 202], errors: [400, 401, 402, 429, 502, 503] },
  createBatch: { success: [200, 202], errors: [400, 401, 402, 404, 422, 429, 503] },
  status: { success: [200], errors: [401, 404, 429] },
  results: { success: [200], errors: [401, 404, 429] },
  elsewhere: { success: [], errors: [404] },
  /** Broken HTTP framing reaches no route: 400 (the service's choice for every unreadable request). */
  framing: { success: [], errors: [400] },
} as const;

export type RouteName = keyof typeof ROUTE_STATUSES;

/** Which of the four routes (if any) a method and path reach. */
export function routeOf(method: string, path: string): Exclude<RouteName, 'framing'> {
  const bare = path.split('?')[0] ?? '';
  const m = method.toUpperCase();
  if (m === 'POST' && bare === '/v1/verify') return 'verify';
  if (m === 'POST' && bare === '/v1/requests') return 'createBatch';
  if (m === 'GET' && /^\/v1\/requests\/[^/]*$/.test(bare)) return 'status';
  if (m === 'GET' && /^\/v1\/requests\/[^/]*\/results$/.test(bare)) return 'results';
  return 'elsewhere';
}

/**
 * The property of every answer: a status the route lists, never a 5xx the route does not list
 * (502/503 only where the spec names them), `X-Request-Id`, and for errors exactly
 * `{error:{code,message,requestId}}` with the same request id.
 */
export function assertSpecAnswer(route: RouteName, answer: RawAnswer, what = ''): void {
  const allowed: readonly number[] = [...ROUTE_STATUSES[route].success, ...ROUTE_STATUSES[route].errors];
  const context = `${what} → ${answer.status} ${answer.text.slice(0, 300)}`;
  assert.ok(allowed.includes(answer.status), `status not listed for ${route}: ${context}`);
  const requestId = answer.headers['x-request-id'];
  assert.equal(typeof requestId, 'string', `no X-Request-Id: ${context}`);
  assert.ok((requestId as string).length > 0, `empty X-Request-Id: ${context}`);
  if (answer.status < 400) return;
  let body: unknown;
  try {
    body = JSON.parse(answer.text);
  } catch {
    assert.fail(`error body is not JSON: ${context}`);
  }
  assertMatches(ErrorBody, body);
  assert.deepEqual(Object.keys(body as object), ['error'], context);
  assert.deepEqual(Object.keys((body as { error: object }).error).sort(), ['code', 'message', 'requestId'], context);
  assert.equal((body as { error: { requestId: string } }).error.requestId, requestId, `requestId differs from X-Request-Id: ${context}`);
  if (answer.status === 429) {
    assert.ok(Number(answer.headers['retry-after']) >= 1, `429 without Retry-After ≥ 1: ${context}`);
  }
}

/** Resident set size of a process in bytes (Linux /proc). */
export async function rssOf(pid: number): Promise<number> {
  const { readFile } = await import('node:fs/promises');
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kb = /VmRSS:\s+(\d+) kB/.exec(status)?.[1];
  if (!kb) throw new Error(`no VmRSS for ${pid}`);
  return Number(kb) * 1024;
}
