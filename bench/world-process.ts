/**
 * The mail world in its own process, so the servers being probed do not share an event loop
 * (or a core) with the prober being measured — as remote MX hosts would not.
 *
 * Started by bench/world-child.ts with IPC; argv[2] is JSON `{ world: BenchWorldOptions,
 * smtpPort?: number }`. Messages in: `reset`, `stats`, `close`. Messages out: `ready`
 * (with env), `reset-done`, `stats` (recorder figures).
 */
import { benchWorld, startMailWorld, type BenchWorldOptions } from '../src/mailworld/index.js';

interface WorldArgs {
  world: BenchWorldOptions;
  smtpPort?: number;
}

const args = JSON.parse(process.argv[2] ?? '{}') as WorldArgs;
const spec = benchWorld(args.world);
const world = await startMailWorld({ ...spec, smtpPort: args.smtpPort ?? 0 }, { truth: args.world.truth ?? {} });

function send(message: object): void {
  process.send?.(message);
}

process.on('message', (message: { type: string }) => {
  if (message.type === 'reset') {
    world.reset();
    send({ type: 'reset-done' });
  } else if (message.type === 'stats') {
    const sessions = world.recorder.sessions();
    const hosts = spec.hosts.map((h) => h.name);
    send({
      type: 'stats',
      sessions: sessions.length,
      rcpts: world.recorder.rcptCount(),
      peakPerHost: Math.max(0, ...hosts.map((h) => world.recorder.maxConcurrent(h))),
      dnsQueries: world.dns.queries.udp + world.dns.queries.tcp,
      limitHits: world.recorder.limitHits(),
    });
  } else if (message.type === 'timeline') {
    // Epoch milliseconds (same clock as the parent's Date.now()): when each session opened and ended.
    send({ type: 'timeline', sessions: world.recorder.sessions().map((s) => ({ host: s.host, startedAt: s.startedAt, endedAt: s.endedAt, commands: s.commands.length })) });
  } else if (message.type === 'close') {
    void world.close().then(() => process.exit(0));
  }
});
// The parent going away takes the world with it.
process.on('disconnect', () => void world.close().then(() => process.exit(0)));

send({ type: 'ready', env: world.env(), dns: { host: world.dns.host, port: world.dns.port }, smtpPort: world.smtpPort });
