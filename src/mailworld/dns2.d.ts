/**
 * The small part of dns2 2.1 (CommonJS, no published types) that the mail world uses:
 * its UDP and TCP server transports and its query parser. Responses are encoded by
 * ./dns-wire.ts, so only the request side of Packet is declared here.
 */
declare module 'dns2' {
  import type { EventEmitter } from 'node:events';
  import type { Server as NetServer, Socket } from 'node:net';
  import type { RemoteInfo, Socket as UdpSocket } from 'node:dgram';

  interface Dns2Question {
    name: string;
    type: number;
    class: number;
  }

  interface Dns2Header {
    id: number;
    qr: number;
    opcode: number;
    aa: number;
    tc: number;
    rd: number;
    ra: number;
    z: number;
    rcode: number;
  }

  interface Dns2Packet {
    header: Dns2Header;
    questions: Dns2Question[];
  }

  type Send = (response: Buffer) => unknown;

  interface Dns2UdpServer extends UdpSocket {
    listen(port: number, address?: string): Promise<void>;
    on(event: 'request', listener: (request: Dns2Packet, send: Send, rinfo: RemoteInfo) => void): this;
    on(event: 'requestError' | 'error', listener: (error: Error) => void): this;
    on(event: string, listener: (...args: unknown[]) => void): this;
  }

  interface Dns2TcpServer extends NetServer {
    on(event: 'request', listener: (request: Dns2Packet, send: Send, client: Socket) => void): this;
    on(event: 'connection', listener: (socket: Socket) => void): this;
    on(event: 'requestError' | 'error', listener: (error: Error) => void): this;
    on(event: string, listener: (...args: unknown[]) => void): this;
  }

  interface Dns2 extends EventEmitter {
    createUDPServer(options?: { type: 'udp4' | 'udp6' }): Dns2UdpServer;
    createTCPServer(): Dns2TcpServer;
    Packet: {
      TYPE: Record<'A' | 'NS' | 'CNAME' | 'SOA' | 'MX' | 'TXT' | 'AAAA' | 'ANY', number>;
      parse(buffer: Buffer): Dns2Packet;
    };
  }

  const dns2: Dns2;
  export default dns2;
  export type { Dns2Packet, Dns2Question, Dns2UdpServer, Dns2TcpServer, Send };
}
