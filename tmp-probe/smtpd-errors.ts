import { connect } from 'node:net';
import { startOpenSmtpd } from '../test/realmta/opensmtpd-bed.js';
const bed = await startOpenSmtpd({ ip: '127.0.99.4', domains: ['a.test'], recipients: ['k@a.test'] });
const sock = connect(bed.port, bed.ip);
const t0 = performance.now();
let buf = '';
let waiting: ((l: string) => void) | null = null;
sock.on('data', (d) => { buf += d.toString(); while (buf.includes('\r\n')) { const i = buf.indexOf('\r\n'); const line = buf.slice(0, i); buf = buf.slice(i + 2); if (/^\d{3} /.test(line) && waiting) { const w = waiting; waiting = null; w(line); } } });
sock.on('close', () => { console.log('closed at', (performance.now() - t0).toFixed(0)); waiting?.('CLOSED'); });
const ask = (cmd: string | null) => new Promise<string>((r) => { waiting = r; if (cmd) sock.write(cmd + '\r\n'); });
console.log(await ask(null));
console.log(await ask('EHLO probe.test'));
const n = Number(process.argv[2] ?? 120);
let line = await ask('MAIL FROM:<p@probe.test>');
const codes: Record<string, number> = {};
for (let i = 0; i < n; i++) {
  line = await ask(`RCPT TO:<nobody${i}@a.test>`);
  codes[line.slice(0, 3)] = (codes[line.slice(0, 3)] ?? 0) + 1;
  if (line === 'CLOSED' || !line.startsWith('5')) { console.log(i, line); if (line === 'CLOSED') break; }
}
console.log(codes, 'elapsed', (performance.now() - t0).toFixed(0));
console.log(await ask('QUIT'));
console.log(bed.limitLines());
await bed.stop();
