/**
 * The world's DNS server: dns2's UDP and TCP transports on one port of 127.0.0.1, answering
 * from the zone. UDP answers larger than 512 bytes are sent empty with TC set, so clients
 * retry over TCP (RFC 1035 §4.2.1, RFC 7766). A name in 'timeout' mode gets no answer at all.
 */
import type { Socket } from 'node:net';
import dns2 from 'dns2';
import type { Dns2Packet, Dns2TcpServer, Dns2UdpServer, Send } from 'dns2';
import { encodeResponse, UDP_PAYLOAD_LIMIT } from './dns-wire.js';
import { answer, type ZoneNode } from './zone.js';

export interface DnsServer {
  host: string;
  port: number;
  /** Queries received, by transport (tests check that big answers went over TCP). */
  queries: { udp: number; tcp: number };
  close(): Promise<void>;
}

const HOST = '127.0.0.1';
const BIND_ATTEMPTS = 20;

function respond(zone: ReadonlyMap<string, ZoneNode>, request: Dns2Packet, send: Send, overUdp: boolean): void {
  const question = request.questions[0];
  if (!question) return;
  const result = answer(zone, question.name, question.type);
  if (result.kind === 'silence') return;
  const base = {
    id: request.header.id,
    recursionDesired: request.header.rd === 1,
    question: { name: question.name, type: question.type, class: question.class },
    rcode: result.rcode,
    answers: result.answers,
  };
  let wire = encodeResponse(base);
  if (overUdp && wire.length > UDP_PAYLOAD_LIMIT) wire = encodeResponse({ ...base, truncated: true });
  void Promise.resolve(send(wire)).catch(() => undefined);
}

function listenUdp(server: Dns2UdpServer, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const onError = (error: Error): void => reject(error);
    server.once('error', onError);
    void server.listen(port, HOST).then(() => {
      server.off('error', onError);
      resolve(server.address().port);
    });
  });
}

function listenTcp(server: Dns2TcpServer, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (error: Error): void => reject(error);
    server.once('error', onError);
    server.listen(port, HOST, () => {
      server.off('error', onError);
      resolve();
    });
  });
}

/** Binds UDP on a free port, then TCP on the same one; null when TCP finds it taken. */
async function bindPair(udp: Dns2UdpServer, tcp: Dns2TcpServer): Promise<number | null> {
  const port = await listenUdp(udp, 0);
  try {
    await listenTcp(tcp, port);
    return port;
  } catch {
    await new Promise<void>((resolve) => udp.close(() => resolve()));
    return null;
  }
}

export async function startDnsServer(zone: ReadonlyMap<string, ZoneNode>): Promise<DnsServer> {
  for (let attempt = 1; ; attempt++) {
    const queries = { udp: 0, tcp: 0 };
    const udp = dns2.createUDPServer({ type: 'udp4' });
    const tcp = dns2.createTCPServer();
    const sockets = new Set<Socket>();
    udp.on('request', (request, send) => {
      queries.udp++;
      respond(zone, request, send, true);
    });
    tcp.on('request', (request, send) => {
      queries.tcp++;
      respond(zone, request, send, false);
    });
    tcp.on('connection', (socket) => {
      sockets.add(socket);
      socket.on('error', () => undefined);
      socket.once('close', () => sockets.delete(socket));
    });
    // A malformed query is the client's problem, not the world's: drop it.
    udp.on('requestError', () => undefined);
    tcp.on('requestError', () => undefined);
    const port = await bindPair(udp, tcp);
    if (port === null) {
      // Another process holds this port on TCP; a closed dgram socket cannot be rebound.
      if (attempt >= BIND_ATTEMPTS) throw new Error(`mail world: no port free on both UDP and TCP of ${HOST}`);
      continue;
    }
    udp.on('error', () => undefined);
    tcp.on('error', () => undefined);
    return {
      host: HOST,
      port,
      queries,
      close: async () => {
        for (const socket of sockets) socket.destroy();
        await Promise.all([
          new Promise<void>((resolve) => udp.close(() => resolve())),
          new Promise<void>((resolve) => tcp.close(() => resolve())),
        ]);
      },
    };
  }
}
