/**
 * A private instance of Debian's Postfix for the real-MTA tests: its own config directory,
 * queue and log under a temp dir, listening on one loopback address, stopped (and its files
 * removed) when the test file ends — never the system's postfix, never port 25 of 127.0.0.1.
 *
 * Its defences are the stock ones: nothing below touches an smtpd_* limit. Only what makes it
 * a recipient-checking MX for the test domains and keeps it from ever delivering is set:
 * - `relay_domains` + `relay_recipient_maps` (texthash: no postmap needed): unknown users get
 *   "550 5.1.1 … User unknown in relay recipient table" (smtpd_reject_unlisted_recipient).
 * - `mynetworks` is a documentation range, so the prober on 127.0.0.1 is a stranger to it: the
 *   client limits (smtpd_client_event_limit_exceptions = $mynetworks) apply as on the internet.
 * - `smtpd_data_restrictions = reject` and an unroutable `relayhost`: no message can be taken,
 *   and none could leave if it were. The tests check that the queue stays empty.
 * - `maillog_file`: postlogd writes the log to a file the tests read ("too many errors" etc.).
 */
import { execFile, execFileSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { filesUnder, freePort, greeted, missingFor, readLog, settleServer, type MtaBed } from './bed.js';

const run = promisify(execFile);
const POSTFIX = '/usr/sbin/postfix';
const MASTER = '/usr/lib/postfix/sbin/master';

/** Why the real-Postfix tests cannot run here, or null when they can. */
export function postfixUnavailable(): string | null {
  return missingFor('Postfix', [POSTFIX, MASTER], ['postfix']);
}

export interface PostfixOptions {
  /** A loopback address of its own, e.g. 127.0.77.2. */
  ip: string;
  /** Domains it is the MX of. */
  domains: string[];
  /** Addresses that exist; every other one at those domains is unknown. */
  recipients: string[];
  /** Extra `-o name=value` for the smtpd service only (e.g. stress=yes); the stock limits otherwise. */
  smtpdOptions?: string[];
  /** Extra main.cf lines, `name = value` (bench/postfix.ts turns off in_flow_delay, see there). */
  mainCf?: string[];
  /** Port; default a free one. */
  port?: number;
}

/** The Postfix of the bed; its settle() also waits for the queue files of unfinished sessions to go (see there). */
export type PostfixBed = MtaBed;

/**
 * The queue and data directories with the owners and modes of Debian's postfix-files (what
 * `postfix check` would create, in a few milliseconds instead of seconds).
 */
function makeQueue(queue: string, data: string): void {
  const uid = Number(execFileSync('id', ['-u', 'postfix']).toString().trim());
  const gid = Number(execFileSync('id', ['-g', 'postfix']).toString().trim());
  const postdrop = Number(execFileSync('getent', ['group', 'postdrop']).toString().split(':')[2]);
  const make = (path: string, mode: number, owner: number, group: number): void => {
    mkdirSync(path, { recursive: true });
    chownSync(path, owner, group);
    chmodSync(path, mode);
  };
  make(data, 0o700, uid, gid);
  make(queue, 0o755, 0, 0);
  make(join(queue, 'pid'), 0o755, 0, 0);
  for (const sub of ['active', 'bounce', 'corrupt', 'defer', 'deferred', 'flush', 'hold', 'incoming', 'private', 'saved', 'trace']) make(join(queue, sub), 0o700, uid, gid);
  make(join(queue, 'maildrop'), 0o730, uid, postdrop);
  make(join(queue, 'public'), 0o710, uid, postdrop);
}

/**
 * master.cf's services besides the listener: only what a receiving MX needs; no chroot (the queue
 * is a temp dir). Exported so another private Postfix (test/feedback/postfix-dsn.test.ts, which
 * adds local delivery) starts from the same list.
 */
export const POSTFIX_SERVICES: readonly string[] = [
  'pickup    unix  n - n 60 1 pickup',
  'cleanup   unix  n - n - 0 cleanup',
  'qmgr      unix  n - n 300 1 qmgr',
  'rewrite   unix  - - n - - trivial-rewrite',
  'bounce    unix  - - n - 0 bounce',
  'defer     unix  - - n - 0 bounce',
  'trace     unix  - - n - 0 bounce',
  'verify    unix  - - n - 1 verify',
  'flush     unix  n - n 1000? 0 flush',
  'proxymap  unix  - - n - - proxymap',
  'showq     unix  n - n - - showq',
  'error     unix  - - n - - error',
  'retry     unix  - - n - - error',
  'discard   unix  - - n - - discard',
  'smtp      unix  - - n - - smtp',
  'relay     unix  - - n - - smtp',
  'anvil     unix  - - n - 1 anvil',
  'scache    unix  - - n - 1 scache',
  'postlog   unix-dgram n - n - 1 postlogd',
];

const MASTER_CF = (ip: string, port: number, smtpd: string[]): string =>
  [`${ip}:${port} inet n - n - - smtpd${smtpd.map((o) => ` -o ${o}`).join('')}`, ...POSTFIX_SERVICES, ''].join('\n');

export async function startPostfix(options: PostfixOptions): Promise<PostfixBed> {
  const dir = mkdtempSync(join(tmpdir(), 'presend-postfix-'));
  // The postfix user must reach its data directory inside it.
  chmodSync(dir, 0o755);
  const conf = join(dir, 'conf');
  const queue = join(dir, 'queue');
  const data = join(dir, 'data');
  const logFile = join(dir, 'maillog');
  mkdirSync(conf);
  makeQueue(queue, data);
  const port = options.port ?? (await freePort(options.ip));
  const hostname = `mx.realmta.test`;
  writeFileSync(
    join(conf, 'main.cf'),
    [
      'compatibility_level = 3.6',
      `queue_directory = ${queue}`,
      `data_directory = ${data}`,
      'command_directory = /usr/sbin',
      'daemon_directory = /usr/lib/postfix/sbin',
      'mail_owner = postfix',
      'setgid_group = postdrop',
      `myhostname = ${hostname}`,
      'mydomain = realmta.test',
      'mydestination =',
      'inet_interfaces = loopback-only',
      'inet_protocols = ipv4',
      'mynetworks = 192.0.2.0/24',
      `relay_domains = ${options.domains.join(', ')}`,
      `relay_recipient_maps = texthash:${join(conf, 'recipients')}`,
      'local_recipient_maps =',
      'alias_maps =',
      'alias_database =',
      'smtpd_data_restrictions = reject',
      'relayhost = [192.0.2.1]',
      `maillog_file = ${logFile}`,
      `maillog_file_prefixes = ${dir}`,
      'smtputf8_enable = yes',
      ...(options.mainCf ?? []),
      '',
    ].join('\n'),
  );
  writeFileSync(join(conf, 'master.cf'), MASTER_CF(options.ip, port, options.smtpdOptions ?? []));
  writeFileSync(join(conf, 'recipients'), options.recipients.map((r) => `${r} OK`).join('\n') + '\n');

  const stopSync = (): void => {
    try {
      execFileSync(POSTFIX, ['-c', conf, 'abort'], { stdio: 'ignore' });
    } catch {
      // not running
    }
  };
  // A test process that dies must not leave a Postfix behind.
  process.once('exit', stopSync);
  const log = (): string => readLog(logFile);
  try {
    // What `postfix start` does, without its slower checks: `master -w` returns once the services are up.
    await run(MASTER, ['-c', conf, '-w']);
    await greeted(options.ip, port, 20_000);
  } catch (error) {
    stopSync();
    process.off('exit', stopSync);
    const tail = log().split('\n').slice(-8).join('\n');
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`postfix did not start: ${(error as Error).message}\n${tail}`);
  }

  /** Files in the queue (incoming, active, deferred, hold, maildrop, corrupt). */
  const queuedFiles = (): number => ['incoming', 'active', 'deferred', 'hold', 'maildrop', 'corrupt'].reduce((sum, sub) => sum + filesUnder(join(queue, sub)), 0);

  return {
    name: `Postfix ${execFileSync('/usr/sbin/postconf', ['-dh', 'mail_version']).toString().trim()}`,
    ip: options.ip,
    port,
    hostname,
    log,
    limitLines: () => log().split('\n').filter((line) => /too many errors|too many connections|Connection (?:concurrency|rate) limit exceeded/i.test(line)),
    queuedFiles,
    settle(timeoutMs) {
      // While a session holds an accepted recipient, smtpd has a queue file open in incoming/
      // (cleanup creates it at the first accepted RCPT); when the session ends without DATA,
      // cleanup removes it after the client has gone. A message really taken never leaves the
      // queue (the relayhost is unroutable): waiting for the transient files takes nothing
      // from the check that the queue stays empty.
      return settleServer(options.ip, port, log, timeoutMs, () => {
        const text = log();
        return (text.match(/: connect from /g)?.length ?? 0) === (text.match(/: disconnect from /g)?.length ?? 0) && queuedFiles() === 0;
      });
    },
    async stop() {
      process.off('exit', stopSync);
      // SIGTERM to the master ends it and its children (master(8)); wait for it to be gone.
      const pidFile = join(queue, 'pid', 'master.pid');
      const pid = existsSync(pidFile) ? Number(readFileSync(pidFile, 'utf8').trim()) : NaN;
      const alive = (): boolean => {
        try {
          process.kill(pid, 0);
          return true;
        } catch {
          return false;
        }
      };
      if (Number.isInteger(pid) && pid > 0) {
        process.kill(pid, 'SIGTERM');
        for (let i = 0; i < 200 && alive(); i++) await new Promise((resolve) => setTimeout(resolve, 25));
        if (alive()) stopSync();
      } else stopSync();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
