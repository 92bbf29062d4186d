/**
 * A private Haraka 3.3 (npm, installed by install.sh into test/realmta/haraka/, its own
 * package.json and lockfile) for the real-MTA tests: its config directory under a temp dir,
 * listening on one loopback address, with a private redis-server (Debian's) beside it on the
 * same address for karma's history and limit's counters. Stopped (both) when the test file ends.
 *
 * Plugins, in order (config/plugins):
 * - redis (haraka-plugin-redis): the connection to the private redis-server, which karma and limit need.
 * - loopback_is_public (haraka/plugins/): the prober comes from 127.0.0.1, which Haraka marks
 *   private, and karma and limit leave private clients alone; on the internet it is public.
 * - limit: stock limit.ini (which ships every limit off) with `[concurrency]` on at its shipped
 *   max = 3 connections per client and `[recipients]` on at 20 per connection (the admins'
 *   usual); beyond
 *   them, after limit's stock 3 s tarpit, "Too many concurrent connections" (4xx, the session
 *   ends) or "Too many recipient attempts" (4xx). Its other limits (errors, rate…) stay off, as shipped.
 * - rcpt_list (haraka/plugins/): the fixed recipient list; Haraka's default 550 "I cannot
 *   deliver mail for <…>" for the rest; DATA refused.
 * - karma: stock karma.ini (tarpit `delay = 1`: once a client's score is negative, every reply
 *   of its session is held 1 s), with the award admins add against dictionary attacks: each
 *   recipient no plugin accepts costs 1 point (taken by rcpt_list, see there), so from the first
 *   unknown recipient of a session on, every reply of that session comes 1 s late. A session
 *   that ends negative counts as "bad" in the client's history (redis).
 */
import { copyFileSync, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { awaitGreeting, freePort, missingFor, readLog, settleServer, startDaemon, type MtaBed } from './bed.js';

const HARAKA_DIR = fileURLToPath(new URL('./haraka/', import.meta.url));
const MODULES = join(HARAKA_DIR, 'node_modules');
const HARAKA = join(MODULES, 'Haraka/bin/haraka');
const REDIS = '/usr/bin/redis-server';

/** Why the Haraka tests cannot run here, or null when they can. */
export function harakaUnavailable(): string | null {
  return missingFor('Haraka', [HARAKA, join(MODULES, 'haraka-plugin-karma/config/karma.ini'), join(MODULES, 'haraka-plugin-limit/config/limit.ini'), REDIS], []);
}

export interface HarakaOptions {
  /** A loopback address of its own, e.g. 127.0.79.2. */
  ip: string;
  domains: string[];
  /** Addresses that exist; every other one at those domains is unknown. */
  recipients: string[];
  port?: number;
}

/** Haraka's bed: karma's tarpit is reported apart from the limits (see karmaSessions). */
export interface HarakaBed extends MtaBed {
  /**
   * One line per session karma penalised (its score went negative, so every reply after that
   * came 1 s late): karma's "score: -N" line, logged as the session ends (its "tarpitting"
   * lines are debug-level). Not a limit hit: a verifier cannot ask for an unknown recipient
   * without losing a point, so what counts is how few sessions pay and how full they are.
   */
  karmaSessions(): string[];
}

/** One line per session and key of `pattern`'s matches: the last line matched in each session. */
function perSession(log: string, pattern: RegExp): string[] {
  const bySession = new Map<string, string>();
  for (const line of log.split('\n')) {
    if (!pattern.test(line)) continue;
    bySession.set(/\[([0-9A-F-]{36})(?:\.\d+)?\]/.exec(line)?.[1] ?? line, line);
  }
  return [...bySession.values()];
}

/**
 * limit's refusals: its own tarpit before one ("tarpitting for 3s", stock tarpit_delay) or a
 * session whose last reply was one ("Too many concurrent connections", "Too many recipient
 * attempts", "Too many errors", rate limits).
 */
const LIMIT_LINE = /\[limit\] tarpitting|lr="4\d\d (?:Too many|.*rate limit)/i;

export async function startHaraka(options: HarakaOptions): Promise<HarakaBed> {
  const dir = mkdtempSync(join(tmpdir(), 'presend-haraka-'));
  const config = join(dir, 'config');
  const plugins = join(dir, 'plugins');
  // Haraka's own defaults first (connection.ini, smtp.ini…, what `haraka -i` would copy), then the bed's files over them.
  cpSync(join(MODULES, 'Haraka/config'), config, { recursive: true });
  mkdirSync(plugins);
  for (const plugin of ['loopback_is_public.js', 'rcpt_list.js']) copyFileSync(join(HARAKA_DIR, 'plugins', plugin), join(plugins, plugin));
  const port = options.port ?? (await freePort(options.ip));
  const redisPort = await freePort(options.ip);
  const hostname = 'mx.realmta.test';
  const write = (name: string, text: string): void => writeFileSync(join(config, name), text);
  write('smtp.ini', [`listen=${options.ip}:${port}`, 'nodes=', 'daemonize=false', ''].join('\n'));
  write('me', `${hostname}\n`);
  write('host_list', options.domains.join('\n') + '\n');
  write('rcpt_list', options.recipients.join('\n') + '\n');
  write('plugins', ['loopback_is_public', 'redis', 'limit', 'karma', 'rcpt_list', ''].join('\n'));
  write('log.ini', ['[main]', 'level=info', 'timestamps=true', ''].join('\n'));
  write('redis.ini', ['[server]', `host=${options.ip}`, `port=${redisPort}`, '[pubsub]', `host=${options.ip}`, `port=${redisPort}`, ''].join('\n'));
  const stockKarma = readFileSync(join(MODULES, 'haraka-plugin-karma/config/karma.ini'), 'utf8');
  // karma turns other plugins' DENY at DATA into a lower score and lets the session go on
  // (its deny_excludes list the plugins it leaves alone): rcpt_list's refusal of DATA must stand.
  const karma = stockKarma.replace(/^plugins=/m, 'plugins=rcpt_list, ');
  if (!karma.includes('plugins=rcpt_list, ')) throw new Error('karma.ini has no [deny_excludes] plugins= line to add rcpt_list to');
  write('karma.ini', karma);
  const stockLimit = readFileSync(join(MODULES, 'haraka-plugin-limit/config/limit.ini'), 'utf8');
  // Stock limit.ini ships every limit off; the admins turn on [concurrency] (its max=3 as
  // shipped) and [recipients] at 20.
  const limit = stockLimit.replace(/^\[concurrency\]$/m, '[concurrency]\nenabled=true').replace(/^\[recipients\]$/m, '[recipients]\nenabled=true\nmax=20');
  if (!/\[concurrency\]\nenabled=true[^[]*\[/.test(limit) || !limit.includes('[recipients]\nenabled=true')) throw new Error('limit.ini: no [concurrency] or [recipients] section to enable');
  write('limit.ini', limit);

  const redis = startDaemon(REDIS, ['--bind', options.ip, '--port', String(redisPort), '--save', '', '--appendonly', 'no', '--dir', dir], {
    outputFile: join(dir, 'redis.log'),
  });
  const logFile = join(dir, 'haraka.log');
  const log = (): string => readLog(logFile);
  const haraka = startDaemon(process.execPath, [HARAKA, '-c', dir], { outputFile: logFile, cwd: dir });
  await awaitGreeting('haraka', options.ip, port, [haraka, redis], dir, log);
  return {
    name: 'Haraka 3.3',
    ip: options.ip,
    port,
    hostname,
    log,
    limitLines: () => perSession(log(), LIMIT_LINE),
    karmaSessions: () => perSession(log(), /\[karma\] score: -\d/),
    // No queue plugin and DATA refused: Haraka's summary line of each session counts the
    // messages it accepted first in `msgs=accepted/tempfailed/rejected`; they must all be 0.
    queuedFiles: () => [...log().matchAll(/ msgs=(\d+)\//g)].reduce((sum, match) => sum + Number(match[1]), 0),
    settle: (timeoutMs) => settleServer(options.ip, port, log, timeoutMs),
    async stop() {
      await haraka.stop();
      await redis.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
