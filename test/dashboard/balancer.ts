/**
 * A load balancer for the tests, in front of several API nodes on loopback: the browser sees
 * one origin, and the test says which node answers next, so it can prove that what one node
 * did (a session, a flash, a key) is honoured by another. It adds X-Forwarded-For and
 * X-Forwarded-Proto as a real proxy does.
 */
import { createServer, request as forward } from 'node:http';
import type { Server } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';

export interface Balancer {
  url: string;
  /** The node requests go to … */
  target: number;
  /** … unless planned: the nodes the next page requests (not assets) go to, in order. */
  plan: number[];
  /** Which node answered each dashboard page request (path → node), in order. */
  served: Array<{ path: string; node: number; status: number }>;
  close(): Promise<void>;
}

export async function startBalancer(upstreams: readonly string[]): Promise<Balancer> {
  const balancer: Balancer = { url: '', target: 0, plan: [], served: [], close: async () => undefined };
  const server: Server = createServer((req, res) => {
    const asset = req.url?.startsWith('/dashboard/assets/') ?? false;
    const node = (asset ? undefined : balancer.plan.shift()) ?? balancer.target;
    const upstream = new URL(upstreams[node] as string);
    const headers = { ...req.headers, 'x-forwarded-for': req.socket.remoteAddress ?? '127.0.0.1', 'x-forwarded-proto': 'http' };
    const out = forward({ host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers }, (answer) => {
      if (!asset) balancer.served.push({ path: req.url ?? '', node, status: answer.statusCode ?? 0 });
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    out.on('error', () => {
      res.writeHead(502);
      res.end();
    });
    req.pipe(out);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  balancer.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  balancer.close = async () => {
    server.closeAllConnections();
    server.close();
    await once(server, 'close');
  };
  return balancer;
}
