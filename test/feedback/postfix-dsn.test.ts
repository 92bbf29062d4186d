/**
 * Bounces from a real MTA: a private instance of Debian's Postfix (its own config, queue and
 * Maildir under a temp dir; no listener at all) takes two messages by `sendmail` for addresses its
 * virtual(8) mailbox table does not have, bounces them, and delivers its own RFC 3464
 * notifications into the sender's Maildir. `presend feedback import` of that Maildir must record
 * both as hard bounces (Status 5.1.1), once however often it runs, and a check of each answers
 * UNDELIVERABLE_BOUNCED. A second configuration beside test/realmta/postfix-bed.ts (which rejects
 * at RCPT and delivers nothing): generating a bounce needs a Postfix that accepts, then bounces.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { POSTFIX_SERVICES, postfixUnavailable } from '../realmta/postfix-bed.js';
import { openBackend } from '../../src/store/open-backend.js';
import type { Backend } from '../../src/store/backend.js';
import { importFeedback, piecesOf } from '../../src/service/feedback/feedback-import.js';
import { readFeedback } from '../../src/service/feedback/check-feedback.js';

const run = promisify(execFile);
const unavailable = postfixUnavailable();
// CI (.ci/run) installs Postfix and sets PRESEND_REQUIRE_REAL_MTA: there a missing Postfix is a failure, not a skip.
if (unavailable && process.env.PRESEND_REQUIRE_REAL_MTA === '1') throw new Error(`the real-MTA tests must run here, but ${unavailable}`);

// The bed's services plus virtual(8), which delivers the DSNs Postfix makes into a Maildir.
const MASTER_CF = [...POSTFIX_SERVICES, 'virtual   unix  - n n - - virtual', ''].join('\n');

let dir = '';
let conf = '';
let maildir = '';
let backend: Backend;

function stopPostfix(): void {
  try {
    execFileSync('/usr/sbin/postfix', ['-c', conf, 'abort'], { stdio: 'ignore' });
  } catch {
    // not running
  }
}

before(async () => {
  if (unavailable) return;
  dir = mkdtempSync(join(tmpdir(), 'presend-postfix-dsn-'));
  chmodSync(dir, 0o755);
  conf = join(dir, 'conf');
  const queue = join(dir, 'queue');
  const data = join(dir, 'data');
  const mail = join(dir, 'mail');
  const uid = Number(execFileSync('id', ['-u', 'postfix']).toString().trim());
  const gid = Number(execFileSync('id', ['-g', 'postfix']).toString().trim());
  const postdrop = Number(execFileSync('getent', ['group', 'postdrop']).toString().split(':')[2]);
  const make = (path: string, mode: number, owner: number, group: number): void => {
    mkdirSync(path, { recursive: true });
    chownSync(path, owner, group);
    chmodSync(path, mode);
  };
  mkdirSync(conf);
  make(data, 0o700, uid, gid);
  make(queue, 0o755, 0, 0);
  make(join(queue, 'pid'), 0o755, 0, 0);
  for (const sub of ['active', 'bounce', 'corrupt', 'defer', 'deferred', 'flush', 'hold', 'incoming', 'private', 'saved', 'trace']) make(join(queue, sub), 0o700, uid, gid);
  make(join(queue, 'maildrop'), 0o730, uid, postdrop);
  make(join(queue, 'public'), 0o710, uid, postdrop);
  make(mail, 0o755, uid, gid);
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
      'myhostname = mx.bounce.test',
      'mydomain = bounce.test',
      'mydestination =',
      'inet_interfaces = loopback-only',
      'inet_protocols = ipv4',
      'mynetworks = 192.0.2.0/24',
      'relay_domains =',
      'local_recipient_maps =',
      'alias_maps =',
      'alias_database =',
      // The only domain it delivers: one mailbox (the sender's, a Maildir since the path ends in /).
      'virtual_mailbox_domains = bounce.test',
      `virtual_mailbox_maps = texthash:${join(conf, 'mailboxes')}`,
      `virtual_mailbox_base = ${mail}`,
      `virtual_uid_maps = static:${uid}`,
      `virtual_gid_maps = static:${gid}`,
      // Nothing can leave: the relay host is a documentation address.
      'relayhost = [192.0.2.1]',
      `maillog_file = ${join(dir, 'maillog')}`,
      `maillog_file_prefixes = ${dir}`,
      '',
    ].join('\n'),
  );
  writeFileSync(join(conf, 'master.cf'), MASTER_CF);
  writeFileSync(join(conf, 'mailboxes'), 'sender@bounce.test sender/\n');
  process.once('exit', stopPostfix);
  await run('/usr/lib/postfix/sbin/master', ['-c', conf, '-w']);
  maildir = join(mail, 'sender');
  backend = await openBackend('sqlite::memory:');
  await backend.migrate();
});

after(async () => {
  if (unavailable) return;
  stopPostfix();
  process.off('exit', stopPostfix);
  await backend.close();
  rmSync(dir, { recursive: true, force: true });
});

async function send(to: string, id: string): Promise<void> {
  const child = execFile('/usr/sbin/sendmail', ['-C', conf, '-f', 'sender@bounce.test', to]);
  child.stdin?.end(`From: sender@bounce.test\nTo: ${to}\nSubject: hello\nMessage-ID: <${id}@bounce.test>\n\nhello\n`);
  await new Promise<void>((resolve, reject) => child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`sendmail exited ${code}`)))));
}

/** The Maildir's messages, once there are `count` of them (or the deadline passes). */
async function bouncesIn(count: number, timeoutMs = 30_000): Promise<string[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const files = ['new', 'cur'].flatMap((sub) => (existsSync(join(maildir, sub)) ? readdirSync(join(maildir, sub)).map((f) => join(maildir, sub, f)) : []));
    if (files.length >= count || Date.now() > deadline) return files;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

test("Postfix's own bounces, in a Maildir, import as hard bounces once, and the checks answer UNDELIVERABLE_BOUNCED", { skip: unavailable ?? false }, async () => {
  await send('nobody@bounce.test', 'one');
  await send('former.staff@bounce.test', 'two');
  const files = await bouncesIn(2);
  assert.equal(files.length, 2, `two bounces delivered; log:\n${readFileSync(join(dir, 'maillog'), 'utf8').split('\n').slice(-10).join('\n')}`);
  for (const f of files) assert.match(readFileSync(f, 'utf8'), /report-type=delivery-status/);
  const account = await backend.accounts.createAccount({ name: 'sender', credits: 0, now: new Date() });
  assert.ok(account);
  const first = await importFeedback({ feedback: backend.feedback, accountId: account.id, source: 'dsn', name: dir, pieces: piecesOf(maildir, 'dsn'), now: () => new Date() });
  assert.deepEqual([first.import.events, first.import.duplicates, first.import.rejected, first.import.state], [2, 0, 0, 'completed']);
  const again = await importFeedback({ feedback: backend.feedback, accountId: account.id, source: 'dsn', name: dir, pieces: piecesOf(maildir, 'dsn'), now: () => new Date() });
  assert.deepEqual([again.import.events, again.import.duplicates], [0, 2]);
  for (const email of ['nobody@bounce.test', 'former.staff@bounce.test']) {
    const record = await backend.feedback.address(account.id, email);
    assert.equal(record.history?.lastHardBounce?.code, '5.1.1', email);
    assert.equal(record.history?.lastHardBounce?.source, 'dsn');
    assert.equal(record.events.length, 1);
    const view = await readFeedback(backend.feedback, [{ accountId: account.id, email }], new Date());
    assert.equal(view.answer({ accountId: account.id, email })?.envelope.verdict, 'UNDELIVERABLE_BOUNCED');
  }
  assert.equal((await backend.feedback.address(account.id, 'sender@bounce.test')).history, null, 'the sender itself bounced nothing');
});
