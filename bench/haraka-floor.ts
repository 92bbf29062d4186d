/**
 * The floor Haraka's karma sets for any verifier on benchmark 9's list: `node --import tsx
 * bench/haraka-floor.ts [RTT_MS]`. A client with none of the engine's work — 3 connections (the
 * bed's `limit`), each a session of 20 recipients (its per-connection cap), pipelined in one
 * write, QUIT with it — asks all 400 addresses in list order and reports the wall time, the
 * sessions karma penalised and limit's refusals. It knows nothing the engine does not know (no
 * address is skipped or reordered), so what it takes is what karma's delays cost at best:
 * once a client's score is negative every reply is held 1 s (an accepted RCPT 2 s), and after
 * two sessions ended negative its history makes every later session negative from the start.
 */
import { connect } from 'node:net';
import { startHaraka } from '../test/realmta/haraka-bed.js';
import { postfixList } from '../test/realmta/lists.js';
import { startLatencyRelay } from '../test/realmta/latency-relay.js';
import { LIST } from './realmta.js';

const rttMs = Number(process.argv.filter((a) => a !== '--')[2] ?? 0);
const list = postfixList(LIST);
const bed = await startHaraka({ ip: `127.0.88.${20 + (rttMs > 0 ? 2 : 0)}`, domains: list.domains, recipients: [...list.existing] });
const relay = await startLatencyRelay({ ip: `127.0.88.${21 + (rttMs > 0 ? 2 : 0)}`, target: { host: bed.ip, port: bed.port }, oneWayMs: rttMs / 2 });

/** One session: banner, EHLO, then MAIL, the recipients and QUIT in one write; resolves at the 221 (or the close). */
function session(recipients: readonly string[]): Promise<number> {
  return new Promise((resolve) => {
    const socket = connect(relay.port, relay.ip);
    socket.setNoDelay(true);
    let buffer = '';
    let stage = 0;
    let replies = 0;
    socket.on('data', (chunk) => {
      buffer += chunk.toString();
      let end: number;
      while ((end = buffer.indexOf('\r\n')) >= 0) {
        const line = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        if (!/^\d{3} /.test(line)) continue;
        if (stage === 0) {
          stage = 1;
          socket.write('EHLO probe.presend.test\r\n');
        } else if (stage === 1) {
          stage = 2;
          socket.write(['MAIL FROM:<probe@presend.test>', ...recipients.map((r) => `RCPT TO:<${r}>`), 'QUIT', ''].join('\r\n'));
        } else {
          replies++;
          if (line.startsWith('221')) socket.end();
        }
      }
    });
    socket.on('close', () => resolve(replies));
    socket.on('error', () => undefined);
  });
}

const queue = [...list.addresses];
const started = performance.now();
await Promise.all(
  Array.from({ length: 3 }, async () => {
    while (queue.length > 0) await session(queue.splice(0, 20));
  }),
);
const seconds = (performance.now() - started) / 1000;
await bed.settle();
process.stdout.write(`haraka floor at ${rttMs} ms: ${list.addresses.length} addresses in ${seconds.toFixed(1)} s (${(list.addresses.length / seconds).toFixed(2)} addresses/s); karma-penalised sessions ${bed.karmaSessions().length}; limit lines ${bed.limitLines().length}\n`);
await relay.close();
await bed.stop();
