/**
 * A webhook receiver on 127.0.0.1 for the tests: records every request as it arrives (headers, raw
 * body, and whether each of the secrets it is told verifies it with the independent
 * `standardwebhooks` package), answers with the status the test sets, and can hold an answer back
 * (a node killed mid-delivery). Connections are counted, so a test can show nothing connected.
 */
import { createServer } from 'node:http';
import type { IncomingHttpHeaders, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface Received {
  /** The request's path (each test's endpoint has its own). */
  path: string;
  id: string;
  timestamp: string;
  signature: string;
  headers: IncomingHttpHeaders;
  body: string;
  payload: { type: string; timestamp: string; data: Record<string, unknown> };
}

export interface Receiver {
  url: string;
  received: Received[];
  connections: number;
  /** The status of the next answers (default 200); a function decides per request, with headers if it likes. */
  answer: number | ((r: Received) => number | { status: number; headers: Record<string, string> });
  /** While set, requests are held unanswered until it resolves. */
  hold: Promise<void> | null;
  /** Which of `secrets` verify the request (each with its own `Webhook`, as a receiver holding it would). */
  verifiedBy(r: Received, secrets: readonly string[]): string[];
  /** Resolves with the first request that `match` accepts (already received or still to come). */
  waitFor(match: (r: Received) => boolean, timeoutMs?: number): Promise<Received>;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const waiters = new Set<() => void>();
  const server: Server = createServer((request, response) => handle(request, response));
  const r: Receiver = {
    url: '',
    received: [],
    connections: 0,
    answer: 200,
    hold: null,
    verifiedBy(req, secrets) {
      return secrets.filter((secret) => {
        try {
          new Webhook(secret).verify(req.body, { 'webhook-id': req.id, 'webhook-timestamp': req.timestamp, 'webhook-signature': req.signature });
          return true;
        } catch {
          return false;
        }
      });
    },
    waitFor(match, timeoutMs = 30_000) {
      return new Promise((resolve, reject) => {
        const check = (): boolean => {
          const found = r.received.find(match);
          if (!found) return false;
          clearTimeout(timer);
          waiters.delete(check as () => void);
          resolve(found);
          return true;
        };
        const timer = setTimeout(() => {
          waiters.delete(check as () => void);
          reject(new Error(`no matching webhook within ${timeoutMs} ms; received ${r.received.map((x) => x.payload.type).join(', ') || 'nothing'}`));
        }, timeoutMs);
        if (!check()) waiters.add(check as () => void);
      });
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  function handle(request: IncomingMessage, response: ServerResponse): void {
    const chunks: Buffer[] = [];
    request.on('data', (c: Buffer) => chunks.push(c));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const got: Received = {
        path: request.url ?? '',
        id: String(request.headers['webhook-id']),
        timestamp: String(request.headers['webhook-timestamp']),
        signature: String(request.headers['webhook-signature']),
        headers: request.headers,
        body,
        payload: JSON.parse(body) as Received['payload'],
      };
      r.received.push(got);
      for (const w of [...waiters]) w();
      const reply = (): void => {
        const given = typeof r.answer === 'function' ? r.answer(got) : r.answer;
        const { status, headers } = typeof given === 'number' ? { status: given, headers: {} } : given;
        const location = status >= 300 && status < 400 ? { location: `${r.url}/redirected` } : {};
        if (!response.destroyed) response.writeHead(status, { ...location, ...headers }).end();
      };
      if (r.hold) void r.hold.then(reply);
      else reply();
    });
  }
  server.on('connection', () => r.connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  r.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return r;
}
