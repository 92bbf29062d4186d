/**
 * A TCP relay that delays each direction by a fixed time, for the real-MTA tests and benchmark
 * at a far host's round trip (80 ms: 40 ms each way). The kernel here has no netem (tc qdisc),
 * so the delay is added in user space: every chunk read on one side is written to the other
 * `oneWayMs` after it arrived, in the order it arrived; the end of a stream (FIN) is delayed
 * the same way, so a half-close reaches the server after the last bytes before it.
 *
 * Buffers are bounded: when more than `highWaterBytes` wait in one direction, that side's
 * reading pauses until they are written (TCP's flow control then slows the sender), so a fast
 * sender cannot grow the relay's memory.
 *
 * The server sees every session coming from the relay's own address (127.0.0.1), as it would
 * from one client behind a NAT: its per-client limits apply to all of them together.
 */
import { connect, createServer, type Server, type Socket } from 'node:net';

export interface LatencyRelayOptions {
  /** Address and port to listen on (port 0: a free one). */
  ip: string;
  port?: number;
  /** The server to relay to. */
  target: { host: string; port: number };
  /** Delay added to each direction, in ms (40 → 80 ms round trip). */
  oneWayMs: number;
  /** Bytes that may wait in one direction before its reading pauses; default 256 KiB. */
  highWaterBytes?: number;
}

export interface LatencyRelay {
  ip: string;
  port: number;
  /** Sessions relayed so far. */
  sessions(): number;
  /** The most sessions that were open through the relay at one time. */
  mostAtOnce(): number;
  close(): Promise<void>;
}

/** One direction: chunks read from `from`, written to `to` oneWayMs later, in order. */
function delayedPipe(from: Socket, to: Socket, oneWayMs: number, highWaterBytes: number): void {
  const queue: { due: number; chunk: Buffer | null }[] = [];
  let queuedBytes = 0;
  let timer: NodeJS.Timeout | undefined;
  const drain = (): void => {
    timer = undefined;
    const now = performance.now();
    while (queue.length > 0 && (queue[0]?.due ?? Infinity) <= now) {
      const item = queue.shift();
      if (!item) break;
      if (item.chunk === null) {
        to.end();
        continue;
      }
      queuedBytes -= item.chunk.length;
      if (!to.destroyed) to.write(item.chunk);
    }
    if (queuedBytes <= highWaterBytes && from.isPaused()) from.resume();
    schedule();
  };
  const schedule = (): void => {
    const head = queue[0];
    if (timer || !head) return;
    timer = setTimeout(drain, Math.max(0, head.due - performance.now()));
  };
  from.on('data', (chunk: Buffer) => {
    queue.push({ due: performance.now() + oneWayMs, chunk });
    queuedBytes += chunk.length;
    if (queuedBytes > highWaterBytes) from.pause();
    schedule();
  });
  from.on('end', () => {
    queue.push({ due: performance.now() + oneWayMs, chunk: null });
    schedule();
  });
  from.on('close', () => {
    // A reset (not a clean end) cuts the other side at once, as a lost path would.
    if (!from.readableEnded) {
      if (timer) clearTimeout(timer);
      to.destroy();
    }
  });
}

export function startLatencyRelay(options: LatencyRelayOptions): Promise<LatencyRelay> {
  const highWaterBytes = options.highWaterBytes ?? 256 * 1024;
  let sessions = 0;
  let current = 0;
  let mostAtOnce = 0;
  const open = new Set<Socket>();
  const server: Server = createServer({ allowHalfOpen: true }, (client) => {
    sessions++;
    current++;
    mostAtOnce = Math.max(mostAtOnce, current);
    client.once('close', () => current--);
    const upstream = connect({ host: options.target.host, port: options.target.port, allowHalfOpen: true });
    for (const socket of [client, upstream]) {
      open.add(socket);
      socket.setNoDelay(true);
      socket.on('error', () => {
        client.destroy();
        upstream.destroy();
      });
      socket.on('close', () => open.delete(socket));
    }
    delayedPipe(client, upstream, options.oneWayMs, highWaterBytes);
    delayedPipe(upstream, client, options.oneWayMs, highWaterBytes);
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.ip, () => {
      const address = server.address();
      resolve({
        ip: options.ip,
        port: typeof address === 'object' && address ? address.port : 0,
        sessions: () => sessions,
        mostAtOnce: () => mostAtOnce,
        close: () =>
          new Promise<void>((done) => {
            for (const socket of open) socket.destroy();
            server.close(() => done());
          }),
      });
    });
  });
}
