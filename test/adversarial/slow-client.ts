/**
 * A slow client (slowloris): sends the head and the first bytes of a body it never finishes,
 * optionally trickling a byte now and then, and reports how the connection ended.
 */
import { connect } from 'node:net';
import type { Socket } from 'node:net';
import { newIdem } from '../api/harness.js';
import { parseRaw } from './raw-http.js';
import type { RawAnswer } from './raw-http.js';

/** Generous bound on "the server ended it": many deadlines plus Node's checking interval. */
const ENDED_WITHIN_MS = 15_000;

export interface SlowClient {
  socket: Socket;
  answer: Promise<RawAnswer & { endedByServer: boolean }>;
}

/** Sends the head and the first bytes of a body it never finishes; `trickleMs` keeps it busy. From `localAddress` when given. */
export function slowClient(url: string, key: string, trickleMs: number | null, localAddress?: string): SlowClient {
  const { hostname, port } = new URL(url);
  const socket = connect({ port: Number(port), host: hostname, ...(localAddress ? { localAddress } : {}) });
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

/** A slow-header client: a request line and one header, then nothing (the head never ends). From `localAddress` when given. */
export function slowHeaders(url: string, localAddress?: string): SlowClient {
  const { hostname, port } = new URL(url);
  const socket = connect({ port: Number(port), host: hostname, ...(localAddress ? { localAddress } : {}) });
  const chunks: Buffer[] = [];
  socket.on('data', (c: Buffer) => chunks.push(c));
  socket.on('error', () => undefined);
  socket.once('connect', () => socket.write(`GET /healthz HTTP/1.1\r\nhost: ${hostname}\r\n`));
  const answer = new Promise<RawAnswer & { endedByServer: boolean }>((resolve) => {
    socket.once('close', () => resolve({ ...parseRaw(Buffer.concat(chunks)), endedByServer: chunks.length > 0 }));
  });
  return { socket, answer };
}
