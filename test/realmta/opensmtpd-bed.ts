/**
 * A private OpenSMTPD 6.8 (Debian's opensmtpd, unpacked by install.sh under REALMTA_ROOT: the
 * package conflicts with postfix) for the real-MTA tests: its own smtpd.conf under a temp dir,
 * listening on one loopback address, run in the foreground (`smtpd -d -v`, the log on stderr)
 * and stopped when the test file ends.
 *
 * Stock limits: nothing in the config touches one. As shipped, 6.8 does not offer PIPELINING,
 * and a client that pipelines anyway gets "500 5.5.1 Invalid command: Pipelining not supported"
 * and loses the session.
 *
 * Two ways to know the recipients, as admins set it up:
 * - a recipient table in the match rule (`rcpt-to <recipients>`): unknown users match no rule,
 *   "550 Invalid recipient: <…>";
 * - a virtual table (`virtual: true`, `action … virtual <virtuals>`): unknown users at its
 *   domains get "524 5.2.4 Mailing list expansion problem: <…>".
 * DATA is refused by a builtin filter ("554 5.7.1 no mail is taken here"); the relay action
 * points at an unroutable documentation address, so nothing could leave if it were taken.
 *
 * smtpd has compiled-in paths its config cannot move: the spool (/var/spool/smtpd) and the
 * control socket (/var/run/smtpd.sock). So only one bed OpenSMTPD runs at a time on a machine
 * (startOpenSmtpd fails with smtpd's own message otherwise), and queuedFiles() reads that spool.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { filesUnder, awaitGreeting, freePort, missingFor, readLog, REALMTA_ROOT, settleServer, startDaemon, type MtaBed } from './bed.js';

const SMTPD = join(REALMTA_ROOT, 'usr/sbin/smtpd');
const SPOOL = '/var/spool/smtpd';
/** The chroot of smtpd's unprivileged processes (Debian's postinst would create it). */
const EMPTY = '/var/lib/opensmtpd/empty';

/** Why the OpenSMTPD tests cannot run here, or null when they can. */
export function openSmtpdUnavailable(): string | null {
  return missingFor('OpenSMTPD', [SMTPD, EMPTY], ['opensmtpd', 'opensmtpq']);
}

export interface OpenSmtpdOptions {
  /** A loopback address of its own, e.g. 127.0.80.2. */
  ip: string;
  domains: string[];
  /** Addresses that exist; every other one at those domains is unknown. */
  recipients: string[];
  /** Know the recipients through a virtual table (unknown: 524 5.2.4) instead of a recipient table (unknown: 550). */
  virtual?: boolean;
  port?: number;
}

/**
 * smtpd's log lines of a client set off one of its defences: a command refused as bad input
 * (pipelining not offered, syntax), too many recipients or errors, a client kicked.
 */
const LIMIT_LINE = /bad-input|Too many|kick|rate limit/i;

export async function startOpenSmtpd(options: OpenSmtpdOptions): Promise<MtaBed> {
  const dir = mkdtempSync(join(tmpdir(), 'presend-opensmtpd-'));
  mkdirSync(EMPTY, { recursive: true });
  const port = options.port ?? (await freePort(options.ip));
  const hostname = 'mx.realmta.test';
  const table = join(dir, options.virtual ? 'virtuals' : 'recipients');
  // A virtual table maps each address to the system user that would receive it (never: DATA is refused).
  writeFileSync(table, options.recipients.map((r) => (options.virtual ? `${r} nobody` : r)).join('\n') + '\n');
  const config = join(dir, 'smtpd.conf');
  writeFileSync(
    config,
    [
      `table ${options.virtual ? 'virtuals' : 'recipients'} file:${table}`,
      `table domains { ${options.domains.join(', ')} }`,
      // A builtin filter needs a condition; these two together match every client.
      'filter nodata_rdns phase data match rdns reject "554 5.7.1 no mail is taken here"',
      'filter nodata_nordns phase data match !rdns reject "554 5.7.1 no mail is taken here"',
      'filter nodata chain { nodata_rdns, nodata_nordns }',
      `listen on ${options.ip} port ${port} hostname ${hostname} filter nodata`,
      ...(options.virtual
        ? ['action "local" maildir virtual <virtuals>', 'match from any for domain <domains> action "local"']
        : ['action "relay" relay host smtp://192.0.2.1', 'match from any for domain <domains> rcpt-to <recipients> action "relay"']),
      '',
    ].join('\n'),
  );
  const logFile = join(dir, 'smtpd.log');
  const log = (): string => readLog(logFile);
  const daemon = startDaemon(SMTPD, ['-d', '-v', '-f', config], { outputFile: logFile });
  await awaitGreeting('smtpd', options.ip, port, [daemon], dir, log);
  return {
    name: 'OpenSMTPD 6.8',
    ip: options.ip,
    port,
    hostname,
    log,
    limitLines: () => log().split('\n').filter((line) => / smtp /.test(line) && LIMIT_LINE.test(line)),
    queuedFiles: () => ['queue', 'incoming', 'temporary', 'corrupt'].reduce((sum, sub) => sum + filesUnder(join(SPOOL, sub)), 0),
    settle: (timeoutMs) => settleServer(options.ip, port, log, timeoutMs),
    async stop() {
      await daemon.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
