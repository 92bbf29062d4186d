/**
 * A loopback HTTP proxy in front of a real `presend serve`, for the faults a real network
 * and a broken deployment produce and a healthy service never does: an answer lost after
 * the service acted, a gateway's 502 page, a page with a repeated or missing cursor, a
 * truncated JSON body. Apart from the gateway answers, every request reaches the real
 * service; only the way back is damaged.
 */
import { createServer, type IncomingMessage } from 'node:http';
import { once } from 'node:events';
import { text } from 'node:stream/consumers';

export interface SeenRequest {
  index: number;
  method: string;
  path: string;
  idempotencyKey: string | null;
}

export interface FaultRules {
  /** Answer in place of the service, without forwarding (a gateway in front of a restarting node). */
  answerInstead?(request: SeenRequest): { status: number; contentType: string; body: string } | undefined;
  /** Forward the request, then cut the connection instead of answering. */
  dropAnswer?(request: SeenRequest): boolean;
  /** Replace the body of a forwarded answer (return undefined to keep it). */
  rewrite?(request: SeenRequest, status: number, body: string): string | undefined;
}

export interface FaultProxy {
  baseUrl: string;
  seen: SeenRequest[];
  close(): Promise<void>;
}

const PASSED_BACK = ['content-type', 'x-request-id', 'retry-after'];

export async function startFaultProxy(targetBaseUrl: string, rules: FaultRules): Promise<FaultProxy> {
  const seen: SeenRequest[] = [];
  const server = createServer((req: IncomingMessage, res) => {
    void (async () => {
      const request: SeenRequest = {
        index: seen.length,
        method: req.method ?? 'GET',
        path: req.url ?? '/',
        idempotencyKey: (req.headers['idempotency-key'] as string | undefined) ?? null,
      };
      seen.push(request);
      const body = await text(req);
      const instead = rules.answerInstead?.(request);
      if (instead) {
        res.writeHead(instead.status, { 'content-type': instead.contentType });
        res.end(instead.body);
        return;
      }
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(req.headers)) {
        if (typeof value === 'string' && !['host', 'connection', 'content-length'].includes(name)) headers[name] = value;
      }
      const answer = await fetch(targetBaseUrl + request.path, {
        method: request.method,
        headers,
        ...(request.method === 'GET' ? {} : { body }),
      });
      const answerBody = await answer.text();
      if (rules.dropAnswer?.(request)) {
        req.socket.destroy();
        return;
      }
      const replaced = rules.rewrite?.(request, answer.status, answerBody);
      const out: Record<string, string> = {};
      for (const name of PASSED_BACK) {
        const value = answer.headers.get(name);
        if (value !== null) out[name] = value;
      }
      res.writeHead(answer.status, out);
      res.end(replaced ?? answerBody);
    })().catch(() => req.socket.destroy());
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    seen,
    async close() {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}
