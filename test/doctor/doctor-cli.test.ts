/**
 * `presend doctor` as an operator runs it: a process against the doctor world (DNS with PTR,
 * SPF and blocklist zones, a canary MX) and a SOCKS5 proxy that refuses port 25.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { DOCTOR_EGRESS, doctorWorld, startMailWorld, startSocksProxy, type MailWorld, type SocksProxy } from '../../src/mailworld/index.js';
import type { DoctorReport } from '../../src/service/prober-health/doctor.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLI_NODE_ARGS } from '../cli-entry.js';
import { spawnCli, waitForLog } from '../service/processes.js';
import { checkOf as check } from './report.js';

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function doctor(env: Record<string, string>, args: string[] = []): Promise<Run> {
  return new Promise((resolve) => {
    execFile(process.execPath, [...CLI_NODE_ARGS, 'doctor', '--no-history', ...args], { env: { PATH: process.env.PATH ?? '', ...env }, timeout: 60_000 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : null) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

describe('presend doctor against the mail world', () => {
  let world: MailWorld;
  let proxy: SocksProxy;
  let env: Record<string, string>;
  before(async () => {
    world = await startMailWorld(doctorWorld());
    proxy = await startSocksProxy({ refusePorts: [world.smtpPort] });
    env = { ...world.env(), PRESEND_SMTP_TIMEOUT_MS: '3000', PRESEND_DNS_TIMEOUT_MS: '2000' };
  });
  after(async () => {
    await proxy.close();
    await world.close();
  });

  test('a healthy route: every row ✓, HEALTHY, exit 0', async () => {
    const run = await doctor(env);
    assert.equal(run.code, 0, run.stdout + run.stderr);
    const rows = run.stdout.split('\n').filter((line) => /^[✓!✗] /.test(line));
    assert.ok(rows.length >= 10, run.stdout);
    assert.ok(rows.every((row) => row.startsWith('✓')), run.stdout);
    for (const id of ['resolver', 'sender_domain', 'port25', 'egress_address', 'ptr', 'helo_matches_ptr', 'helo_resolves', 'spf', 'dnsbl:zen.spamhaus.org']) {
      assert.match(run.stdout, new RegExp(`✓  ${id.replace('.', '\\.')}\\s`), id);
    }
    assert.match(run.stdout, /egress 127\.0\.0\.1 \(named by the canary's EHLO reply\)/);
    assert.match(run.stdout, /HEALTHY/);
  });

  test('--json: the report for scripts, with the listed route ✗ and its blocklists named (exit 1)', async () => {
    const run = await doctor({ ...env, PRESEND_EGRESS_IP: DOCTOR_EGRESS.listed.ip, PRESEND_HELO_NAME: DOCTOR_EGRESS.listed.helo }, ['--json']);
    assert.equal(run.code, 1, run.stdout + run.stderr);
    const report = JSON.parse(run.stdout) as DoctorReport;
    assert.deepEqual(Object.keys(report).sort(), ['canary', 'checkedAt', 'checks', 'exitCode', 'health', 'routes']);
    assert.equal(report.health, 'degraded');
    assert.equal(report.exitCode, 1);
    assert.deepEqual(report.routes, [{ name: 'direct', proxy: null, heloName: DOCTOR_EGRESS.listed.helo, egressIp: DOCTOR_EGRESS.listed.ip, egressSource: 'setting' }]);
    assert.equal(report.canary?.host, 'mx.presend.test');
    for (const c of report.checks) {
      assert.ok(['ok', 'warn', 'fail'].includes(c.status) && ['degraded', 'broken'].includes(c.impact), JSON.stringify(c));
      assert.ok(c.summary.length > 0 && c.meaning.length > 0, c.id);
      assert.equal(c.action === null, c.status === 'ok', `${c.id}: an action exactly when something is wrong`);
    }
    const zen = check(report, 'dnsbl:zen.spamhaus.org');
    assert.equal(zen.status, 'fail');
    assert.match(zen.summary, /LISTED on zen\.spamhaus\.org \(127\.0\.0\.2\): Listed by SBL/);
    assert.equal(check(report, 'dnsbl:b.barracudacentral.org').status, 'fail');
    assert.equal(check(report, 'dnsbl:bl.spamcop.net').status, 'ok');
    // The canary saw the loopback source, not the address the setting names: said, not hidden.
    assert.equal(check(report, 'egress_address').status, 'warn');
    assert.equal(check(report, 'ptr').status, 'ok');
  });

  test('a proxy that refuses port 25 is named with its SOCKS5 reply, BROKEN, exit 2', async () => {
    const run = await doctor({ ...env, PRESEND_SMTP_PROXY: proxy.url });
    assert.equal(run.code, 2, run.stdout + run.stderr);
    assert.match(run.stdout, /✗ {2}port25\s+proxy\s+the SOCKS5 proxy refused to connect to mx\.presend\.test .*reply 0x02 "connection not allowed by ruleset"/);
    assert.match(run.stdout, /does not allow connections to port 25/);
    assert.match(run.stdout, /do:\s+Use a SOCKS5 proxy that allows outbound port 25/);
    assert.match(run.stdout, /BROKEN/);
    assert.ok(proxy.counts.refused >= 1);
  });

  test('a blocklist\'s "public resolver" answer is not read as a listing', async () => {
    const run = await doctor({ ...env, PRESEND_EGRESS_IP: DOCTOR_EGRESS.publicResolver.ip, PRESEND_HELO_NAME: DOCTOR_EGRESS.publicResolver.helo }, ['--json']);
    const report = JSON.parse(run.stdout) as DoctorReport;
    const zen = check(report, 'dnsbl:zen.spamhaus.org');
    assert.equal(zen.status, 'warn');
    assert.match(zen.summary, /public or open resolver \(Spamhaus 127\.255\.255\.254\)/);
    assert.doesNotMatch(zen.summary, /LISTED/);
    assert.ok(report.checks.every((c) => c.status !== 'fail'), 'nothing failed');
    assert.equal(run.code, 1);
  });

  test('a PTR that does not confirm, and a HELO name that is not it, are named', async () => {
    const run = await doctor({ ...env, PRESEND_EGRESS_IP: DOCTOR_EGRESS.ptrMismatch.ip, PRESEND_HELO_NAME: DOCTOR_EGRESS.ptrMismatch.helo });
    assert.equal(run.code, 1, run.stdout + run.stderr);
    assert.match(run.stdout, /✗ {2}ptr\s+direct\s+the PTR of 127\.0\.0\.12 \(elsewhere\.presend\.test\) does not resolve back to it/);
    assert.match(run.stdout, /✗ {2}helo_matches_ptr\s+direct\s+PRESEND_HELO_NAME probe12\.presend\.test is not the PTR name of 127\.0\.0\.12/);
  });

  test('presend worker logs the cheap checks at start-up', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'presend-doctor-'));
    const child = spawnCli(['worker'], { ...env, PRESEND_DATABASE_URL: `sqlite:${join(dir, 'presend.db')}`, PRESEND_EGRESS_IP: DOCTOR_EGRESS.listed.ip, PRESEND_HELO_NAME: DOCTOR_EGRESS.listed.helo });
    try {
      const listed = waitForLog(child, 'prober health: 127.0.0.10 is LISTED on zen.spamhaus.org (127.0.0.2): Listed by SBL, see https://check.spamhaus.org/');
      const summary = await waitForLog(child, 'prober health (cheap checks; `presend doctor` runs them all)');
      assert.equal(summary.health, 'degraded');
      assert.equal((await listed).check, 'dnsbl:zen.spamhaus.org');
    } finally {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
