/**
 * The in-run baseline for the engine benchmark: the least a prober can do on this machine in
 * this world. No classification, no envelopes, no timeouts, no safety caps: per domain one MX
 * lookup and one A lookup, then `sessions` connections per MX host, each banner → EHLO → one
 * pipelined MAIL + RCPT… group (the first one carrying the catch-all probe) → QUIT.
 * It shows what the world's servers and this machine's CPU cost on top of the pure latency
 * floor, so the engine's ratio can be read against both.
 */
import { Resolver } from 'node:dns/promises';
import { connect, type Socket } from 'node:net';

/** Resolves once `count` final reply lines (`NNN ` rather than `NNN-`) have arrived. */
function finalReplies(socket: Socket, count: number): Promise<void> {
  return new Promise((resolve, reject) => {
    let seen = 0;
    let rest = '';
    const onData = (chunk: Buffer): void => {
      const lines = (rest + chunk.toString('latin1')).split('\r\n');
      rest = lines.pop() ?? '';
      for (const line of lines) if (/^\d{3} /.test(line)) seen++;
      if (seen >= count) {
        socket.off('data', onData);
        resolve();
      }
    };
    socket.on('data', onData);
    socket.once('error', reject);
  });
}

async function session(ip: string, port: number, recipients: readonly string[]): Promise<void> {
  const socket = connect({ host: ip, port });
  socket.setNoDelay(true);
  await finalReplies(socket, 1);
  socket.write('EHLO probe.presend.test\r\n');
  await finalReplies(socket, 1);
  socket.write(`MAIL FROM:<probe@presend.test>\r\n${recipients.map((r) => `RCPT TO:<${r}>\r\n`).join('')}`);
  await finalReplies(socket, 1 + recipients.length);
  socket.end('QUIT\r\n');
  socket.destroy();
}

export async function idealProbe(addresses: readonly string[], dns: { host: string; port: number }, smtpPort: number, sessions: number): Promise<number> {
  const started = performance.now();
  const resolver = new Resolver({ timeout: 2000, tries: 1 });
  resolver.setServers([`${dns.host}:${dns.port}`]);
  const byDomain = new Map<string, string[]>();
  for (const address of addresses) {
    const domain = address.slice(address.lastIndexOf('@') + 1);
    const list = byDomain.get(domain) ?? [];
    list.push(address);
    byDomain.set(domain, list);
  }
  await Promise.all(
    [...byDomain].map(async ([domain, list]) => {
      const mx = (await resolver.resolveMx(domain)).sort((a, b) => a.priority - b.priority)[0];
      if (!mx) return;
      const [ip] = await resolver.resolve4(mx.exchange);
      if (!ip) return;
      const chunks: string[][] = Array.from({ length: sessions }, () => []);
      list.forEach((address, i) => chunks[i % sessions]?.push(address));
      chunks[0]?.unshift(`presend-catch-all-probe@${domain}`);
      await Promise.all(chunks.filter((c) => c.length > 0).map((chunk) => session(ip, smtpPort, chunk)));
    }),
  );
  return performance.now() - started;
}
