/**
 * Encodes DNS responses (RFC 1035 §4.1). dns2 writes names uncompressed and bit by bit, so a
 * domain with thousands of MX records would overflow the 64 KiB TCP message and cost tens of
 * milliseconds per answer; this encoder compresses names (§4.1.4) and writes bytes directly.
 */
import { isIPv6 } from 'node:net';

export const RTYPE = { A: 1, CNAME: 5, PTR: 12, MX: 15, TXT: 16, AAAA: 28 } as const;
export const RCODE = { NOERROR: 0, SERVFAIL: 2, NXDOMAIN: 3 } as const;

/** Largest DNS message over UDP without EDNS (RFC 1035 §4.2.1). */
export const UDP_PAYLOAD_LIMIT = 512;

export type ResourceRecord =
  | { name: string; type: typeof RTYPE.A; address: string }
  | { name: string; type: typeof RTYPE.AAAA; address: string }
  | { name: string; type: typeof RTYPE.CNAME; target: string }
  | { name: string; type: typeof RTYPE.MX; preference: number; exchange: string }
  | { name: string; type: typeof RTYPE.PTR; target: string }
  | { name: string; type: typeof RTYPE.TXT; text: string };

export interface DnsResponse {
  id: number;
  recursionDesired: boolean;
  question: { name: string; type: number; class: number };
  rcode: number;
  truncated?: boolean;
  answers: ResourceRecord[];
}

const TTL_SECONDS = 300;

class WireWriter {
  private buffer = Buffer.alloc(512);
  private length = 0;
  private readonly names = new Map<string, number>();

  private ensure(extra: number): void {
    if (this.length + extra <= this.buffer.length) return;
    const bigger = Buffer.alloc(Math.max(this.buffer.length * 2, this.length + extra));
    this.buffer.copy(bigger, 0, 0, this.length);
    this.buffer = bigger;
  }

  get offset(): number {
    return this.length;
  }

  u8(value: number): void {
    this.ensure(1);
    this.buffer.writeUInt8(value, this.length);
    this.length += 1;
  }

  u16(value: number): void {
    this.ensure(2);
    this.buffer.writeUInt16BE(value, this.length);
    this.length += 2;
  }

  u32(value: number): void {
    this.ensure(4);
    this.buffer.writeUInt32BE(value, this.length);
    this.length += 4;
  }

  setU16(at: number, value: number): void {
    this.buffer.writeUInt16BE(value, at);
  }

  bytes(data: Buffer): void {
    this.ensure(data.length);
    data.copy(this.buffer, this.length);
    this.length += data.length;
  }

  /** Writes a name, pointing at an earlier copy of its longest known suffix (RFC 1035 §4.1.4). */
  name(name: string): void {
    const labels = name.split('.').filter((label) => label.length > 0);
    for (let i = 0; i < labels.length; i++) {
      const suffix = labels.slice(i).join('.').toLowerCase();
      const known = this.names.get(suffix);
      if (known !== undefined) {
        this.u16(0xc000 | known);
        return;
      }
      // Pointers hold 14 bits, so only names in the first 16 KiB can be targets.
      if (this.length < 0x3fff) this.names.set(suffix, this.length);
      const label = Buffer.from(labels[i] ?? '', 'latin1');
      this.u8(label.length);
      this.bytes(label);
    }
    this.u8(0);
  }

  toBuffer(): Buffer {
    return Buffer.from(this.buffer.subarray(0, this.length));
  }
}

function ipv6Bytes(address: string): Buffer {
  const [head = '', tail = ''] = address.includes('::') ? address.split('::') : [address, ''];
  const headParts = head === '' ? [] : head.split(':');
  const tailParts = tail === '' ? [] : tail.split(':');
  const missing = 8 - headParts.length - tailParts.length;
  const groups = [...headParts, ...Array<string>(Math.max(0, missing)).fill('0'), ...tailParts];
  const out = Buffer.alloc(16);
  groups.slice(0, 8).forEach((group, i) => out.writeUInt16BE(parseInt(group, 16) || 0, i * 2));
  return out;
}

function writeRecord(w: WireWriter, record: ResourceRecord): void {
  w.name(record.name);
  w.u16(record.type);
  w.u16(1); // class IN
  w.u32(TTL_SECONDS);
  const lengthAt = w.offset;
  w.u16(0);
  const start = w.offset;
  switch (record.type) {
    case RTYPE.A:
      for (const octet of record.address.split('.')) w.u8(Number(octet) & 0xff);
      break;
    case RTYPE.AAAA:
      w.bytes(isIPv6(record.address) ? ipv6Bytes(record.address) : Buffer.alloc(16));
      break;
    case RTYPE.CNAME:
    case RTYPE.PTR:
      w.name(record.target);
      break;
    case RTYPE.TXT: {
      // A TXT record is character-strings of at most 255 bytes each (RFC 1035 §3.3.14); a
      // longer SPF record is published as several, which readers join without spaces (RFC 7208 §3.3).
      const bytes = Buffer.from(record.text, 'utf8');
      if (bytes.length === 0) w.u8(0);
      for (let at = 0; at < bytes.length; at += 255) {
        const piece = bytes.subarray(at, at + 255);
        w.u8(piece.length);
        w.bytes(piece);
      }
      break;
    }
    case RTYPE.MX:
      w.u16(record.preference);
      // The null MX of RFC 7505 is the root name: a single zero byte.
      w.name(record.exchange === '.' ? '' : record.exchange);
      break;
  }
  w.setU16(lengthAt, w.offset - start);
}

export function encodeResponse(response: DnsResponse): Buffer {
  const w = new WireWriter();
  w.u16(response.id);
  // QR=1, opcode 0, AA=1, TC, RD echoed, RA=1 (the world answers as a recursive resolver would).
  const flags =
    0x8000 | 0x0400 | (response.truncated ? 0x0200 : 0) | (response.recursionDesired ? 0x0100 : 0) | 0x0080 | (response.rcode & 0xf);
  w.u16(flags);
  w.u16(1);
  w.u16(response.truncated ? 0 : response.answers.length);
  w.u16(0);
  w.u16(0);
  w.name(response.question.name);
  w.u16(response.question.type);
  w.u16(response.question.class);
  if (!response.truncated) for (const record of response.answers) writeRecord(w, record);
  return w.toBuffer();
}
