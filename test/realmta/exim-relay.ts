/**
 * A sender's Exim 4.96 in front of a bed (exim-bed.ts or any other): mail submitted on its command
 * line (`exim -odi`, as a site's `sendmail` does) is relayed to the bed, and when the bed refuses a
 * recipient Exim itself writes the bounce (its RFC 3464 report) and delivers it into the sender's
 * Maildir — the bounces test/feedback/exim-dsn.test.ts imports. No listener, no DNS: the bed is
 * named by address. Its own config, spool, log and Maildir under a temp dir, removed by `stop()`.
 *
 * Why a copy of the binary: Exim re-executes itself to deliver (and to submit the bounce) after it
 * dropped root for `-C`; the unpacked binary is setuid root, so that exec runs in the kernel's
 * secure mode, which ignores LD_LIBRARY_PATH — and the library it needs is only in LIBRARIES. The
 * copy (`exim_path`) is not setuid, so it keeps the path and runs as Debian-exim, as it would anyway.
 */
import { spawn, execFileSync } from 'node:child_process';
import { chmodSync, chownSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readLog } from './bed.js';
import type { MtaBed } from './bed.js';
import { EXIM, LIBRARIES } from './exim-bed.js';

export interface EximRelay {
  /** The sender's Maildir (cur/ and new/), where Exim delivers its bounces. */
  maildir: string;
  /** Submits a message from the sender to `to`; resolves once Exim has taken it (its delivery, and bounce, follow in a process of its own). */
  send(to: string, messageId: string): Promise<void>;
  /** The messages in the Maildir. */
  bounces(): string[];
  log(): string;
  stop(): void;
}

export function startEximRelay(options: { bed: MtaBed; bedDomains: string[]; sender: string }): EximRelay {
  const [localPart, senderDomain] = options.sender.split('@') as [string, string];
  const dir = mkdtempSync(join(tmpdir(), 'presend-exim-relay-'));
  const uid = Number(execFileSync('id', ['-u', 'Debian-exim']).toString().trim());
  const gid = Number(execFileSync('id', ['-g', 'Debian-exim']).toString().trim());
  for (const path of [dir, join(dir, 'spool'), join(dir, 'log'), join(dir, 'mail')]) {
    mkdirSync(path, { recursive: true });
    chownSync(path, uid, gid);
  }
  const binary = join(dir, 'exim4');
  copyFileSync(EXIM, binary);
  chmodSync(binary, 0o755); // without the setuid bit the copy kept: see above
  const maildir = join(dir, 'mail', localPart);
  const config = join(dir, 'exim.conf');
  writeFileSync(
    config,
    [
      `primary_hostname = relay.${senderDomain}`,
      `exim_path = ${binary}`,
      `spool_directory = ${join(dir, 'spool')}`,
      `log_file_path = ${join(dir, 'log')}/%slog`,
      'keep_environment = LD_LIBRARY_PATH',
      `domainlist sender_domains = ${senderDomain}`,
      `domainlist bed_domains = ${options.bedDomains.join(' : ')}`,
      'begin routers',
      // The sender's own mailbox: where the bounces go.
      'sender_mailbox:',
      '  driver = accept',
      '  domains = +sender_domains',
      `  local_parts = ${localPart}`,
      '  transport = maildir',
      // Everything for the bed's domains goes to the bed (a loopback address: `self` and `allow_localhost` let it).
      'to_bed:',
      '  driver = manualroute',
      '  domains = +bed_domains',
      `  route_list = * ${options.bed.ip}`,
      '  self = send',
      '  transport = bed_smtp',
      'begin transports',
      'maildir:',
      '  driver = appendfile',
      `  directory = ${maildir}`,
      '  maildir_format',
      '  delivery_date_add',
      '  envelope_to_add',
      '  return_path_add',
      'bed_smtp:',
      '  driver = smtp',
      `  port = ${options.bed.port}`,
      '  allow_localhost',
      '',
    ].join('\n'),
  );
  const env = { ...process.env, LD_LIBRARY_PATH: LIBRARIES };
  return {
    maildir,
    async send(to, messageId) {
      // -odi: delivered at once by a process of its own, not left for a queue run (there is none).
      const child = spawn(binary, ['-C', config, '-odi', '-f', options.sender, to], { env, stdio: ['pipe', 'ignore', 'pipe'] });
      let stderr = '';
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
      child.stdin.end(`From: ${options.sender}\nTo: ${to}\nSubject: hello\nMessage-ID: <${messageId}@${senderDomain}>\n\nhello\n`);
      const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
      // Exim notes on stderr that -C cost it its privileges; only the exit status says whether it took the message.
      if (code !== 0) throw new Error(`exim exited ${code}: ${stderr}`);
    },
    bounces: () => ['new', 'cur'].flatMap((sub) => (existsSync(join(maildir, sub)) ? readdirSync(join(maildir, sub)).map((f) => join(maildir, sub, f)) : [])),
    log: () => readLog(join(dir, 'log', 'mainlog')),
    stop: () => rmSync(dir, { recursive: true, force: true }),
  };
}
