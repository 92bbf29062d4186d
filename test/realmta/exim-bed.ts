/**
 * A private Exim 4.96 (Debian's exim4-daemon-light, unpacked by install.sh under REALMTA_ROOT:
 * the package conflicts with postfix) for the real-MTA tests: its own config (`-C`), spool and
 * log under a temp dir, listening on one loopback address, run in the foreground (`-bdf`) and
 * stopped when the test file ends. Exim drops to the Debian-exim user because of `-C`, so the
 * temp dir belongs to that user and the port is above 1023.
 *
 * The defences (README.md names which are stock):
 * - RCPT ACL: a recipient in the fixed list is accepted; any other gets `550 Unknown user`, and
 *   from the 4th refused recipient of a message on, each refusal is held 1 s first
 *   (`delay = 1s` when `$rcpt_fail_count > 2`, the Exim wiki's tarpit idiom), logged as
 *   "delayed unknown recipient".
 * - smtp_accept_max_per_host = 10 and recipients_max = 100 (the admins' usual settings; both
 *   unlimited in 4.96's defaults), smtp_accept_max = 20 and smtp_accept_max_nonmail = 10 (stock:
 *   the 11th NOOP/RSET/… without a MAIL between drops the session, "554 Too many nonmail commands").
 * - DATA is refused by the predata ACL: no message is ever taken.
 */
import { chownSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { filesUnder, awaitGreeting, freePort, missingFor, readLog, REALMTA_ROOT, settleServer, startDaemon, type MtaBed } from './bed.js';

/** The unpacked binary and the library it needs beside it (exim-relay.ts runs them too). */
export const EXIM = join(REALMTA_ROOT, 'usr/sbin/exim4');
export const LIBRARIES = join(REALMTA_ROOT, 'usr/lib/x86_64-linux-gnu');

/** Why the Exim tests cannot run here, or null when they can. */
export function eximUnavailable(): string | null {
  return missingFor('Exim', [EXIM], ['Debian-exim']);
}

export interface EximOptions {
  /** A loopback address of its own, e.g. 127.0.78.2. */
  ip: string;
  domains: string[];
  /** Addresses that exist; every other one at those domains is unknown. */
  recipients: string[];
  port?: number;
  /** Main-section lines that replace or add to the bed's (e.g. `smtp_accept_max_per_host = 2`). */
  main?: string[];
}

/** Log lines of an Exim limit or defence being set off. */
const LIMIT_LINE =
  /delayed unknown recipient|too many (?:nonmail commands|recipients|connections|syntax or protocol errors|unrecognized commands|messages)|synchronization error|refused: too many/i;

export async function startExim(options: EximOptions): Promise<MtaBed> {
  const dir = mkdtempSync(join(tmpdir(), 'presend-exim-'));
  const uid = Number(execFileSync('id', ['-u', 'Debian-exim']).toString().trim());
  const gid = Number(execFileSync('id', ['-g', 'Debian-exim']).toString().trim());
  const spool = join(dir, 'spool');
  for (const path of [dir, spool, join(dir, 'log')]) {
    mkdirSync(path, { recursive: true });
    chownSync(path, uid, gid);
  }
  const port = options.port ?? (await freePort(options.ip));
  const hostname = 'mx.realmta.test';
  const recipientsFile = join(dir, 'recipients');
  writeFileSync(recipientsFile, options.recipients.join('\n') + '\n');
  const config = join(dir, 'exim.conf');
  writeFileSync(
    config,
    [
      `primary_hostname = ${hostname}`,
      `spool_directory = ${spool}`,
      `log_file_path = ${join(dir, 'log')}/%slog`,
      `pid_file_path = ${join(dir, 'exim.pid')}`,
      `local_interfaces = ${options.ip}`,
      `daemon_smtp_ports = ${port}`,
      'keep_environment =',
      // No STARTTLS (no certificate to make); not a defence.
      'tls_advertise_hosts =',
      `domainlist bed_domains = ${options.domains.join(' : ')}`,
      'smtp_accept_max_per_host = 10',
      'recipients_max = 100',
      'acl_smtp_rcpt = acl_check_rcpt',
      'acl_smtp_predata = acl_check_predata',
      // Session starts and ends in the log, and protocol errors (pipelining out of turn).
      'log_selector = +smtp_connection +smtp_protocol_error +smtp_syntax_error +smtp_no_mail',
      ...(options.main ?? []),
      'begin acl',
      'acl_check_rcpt:',
      '  deny    message = relay not permitted',
      '          !domains = +bed_domains',
      `  accept  condition = \${lookup{$local_part@$domain}lsearch{${recipientsFile}}{yes}{no}}`,
      '  deny    condition = ${if >{$rcpt_fail_count}{2}}',
      '          delay = 1s',
      '          logwrite = delayed unknown recipient $local_part@$domain ($rcpt_fail_count refused before it)',
      '          message = Unknown user',
      '  deny    message = Unknown user',
      'acl_check_predata:',
      '  deny    message = no mail is taken here',
      'begin routers',
      'begin transports',
      '',
    ].join('\n'),
  );
  const logFile = join(dir, 'log', 'mainlog');
  const log = (): string => readLog(logFile);
  const daemon = startDaemon(EXIM, ['-C', config, '-bdf'], {
    outputFile: join(dir, 'daemon.out'),
    env: { ...process.env, LD_LIBRARY_PATH: LIBRARIES },
  });
  await awaitGreeting('exim', options.ip, port, [daemon], dir, log);
  const queuedFiles = (): number => filesUnder(join(spool, 'input'));
  return {
    name: 'Exim 4.96',
    ip: options.ip,
    port,
    hostname,
    log,
    limitLines: () => log().split('\n').filter((line) => LIMIT_LINE.test(line)),
    queuedFiles,
    settle: (timeoutMs) => settleServer(options.ip, port, log, timeoutMs),
    async stop() {
      await daemon.stop();
      // Session processes outlive the daemon a moment and would recreate spool files under a removed dir.
      await settleServer(options.ip, port, log, 5000);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
