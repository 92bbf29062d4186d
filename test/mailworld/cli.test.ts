import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { Resolver } from 'node:dns/promises';
import { SmtpTalk } from './smtp-talk.js';
import { CLI_NODE_ARGS } from '../cli-entry.js';


interface Printed {
  env: Record<string, string>;
  dns: { host: string; port: number };
  smtpPort: number;
  hosts: Record<string, string>;
  samples: Array<{ email: string; about: string; expected: string }>;
}

function startCli(args: string[]): { child: ReturnType<typeof spawn>; output: Promise<string> } {
  const child = spawn(process.execPath, [...CLI_NODE_ARGS, 'mailworld', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  const output = new Promise<string>((resolve, reject) => {
    let text = '';
    const timer = setTimeout(() => reject(new Error(`no output in time: ${text}`)), 20_000);
    child.stdout?.setEncoding('utf8');
    child.stdout?.on('data', (chunk: string) => {
      text += chunk;
      if (/\n}\n$/.test(text) || text.includes('Ctrl-C to stop.')) {
        clearTimeout(timer);
        resolve(text);
      }
    });
    child.once('exit', () => reject(new Error(`exited early: ${text}`)));
  });
  return { child, output };
}

function exitCode(child: ReturnType<typeof spawn>): Promise<number | null> {
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

describe('presend mailworld', () => {
  test('--json prints the engine environment and sample verdicts, serves them, and stops cleanly on SIGTERM', async () => {
    const { child, output } = startCli(['--json']);
    const printed = JSON.parse(await output) as Printed;
    try {
      assert.equal(printed.env.PRESEND_DNS_SERVERS, `127.0.0.1:${printed.dns.port}`);
      assert.equal(printed.env.PRESEND_SMTP_PORT, String(printed.smtpPort));
      assert.equal(printed.env.PRESEND_ALLOW_PRIVATE_MX, 'loopback', 'loopback only: pasting it must not open the LAN');
      const onLoopback = (ip: string): boolean => ip.startsWith('127.') || ip === '::1';
      for (const sample of printed.samples) {
        const domain = sample.email.slice(sample.email.lastIndexOf('@') + 1);
        const mxIps = Object.entries(printed.hosts).filter(([name]) => name.endsWith(`.${domain}`)).map(([, ip]) => ip);
        assert.ok(mxIps.every(onLoopback), `${sample.email}: ${mxIps.join(',')}`);
      }
      assert.ok(!printed.samples.some((s) => /@(?:private|linklocal)-mx\.test$/.test(s.email)), 'no sample on 10.0.0.25 or 169.254.10.25');
      assert.equal(printed.env.PRESEND_HELO_NAME, 'probe.presend.test');
      assert.equal(printed.env.PRESEND_MAIL_FROM, 'probe@presend.test');
      assert.equal(printed.samples.find((s) => s.email === 'nobody@acme.test')?.expected, 'UNDELIVERABLE_NO_MAILBOX');

      const resolver = new Resolver({ timeout: 500, tries: 1 });
      resolver.setServers([`127.0.0.1:${printed.dns.port}`]);
      const [mx] = (await resolver.resolveMx('acme.test')).sort((a, b) => a.priority - b.priority);
      assert.equal(mx?.exchange, 'mx1.acme.test');
      const [ip] = await resolver.resolve4('mx1.acme.test');
      assert.equal(ip, printed.hosts['mx1.acme.test']);

      const talk = await SmtpTalk.open(ip ?? '', printed.smtpPort);
      assert.equal((await talk.read()).code, 220);
      await talk.command('EHLO probe.presend.test');
      await talk.command('MAIL FROM:<probe@presend.test>');
      assert.equal((await talk.command('RCPT TO:<nobody@acme.test>')).code, 550);
      talk.close();
    } finally {
      const exited = exitCode(child);
      child.kill('SIGTERM');
      assert.equal(await exited, 0);
    }
  });

  test('the text output has export lines and a table, and --port fixes the SMTP port', async () => {
    const probe = startCli([]);
    const first = await probe.output;
    const port = Number(/PRESEND_SMTP_PORT=(\d+)/.exec(first)?.[1]);
    const firstExit = exitCode(probe.child);
    probe.child.kill('SIGINT');
    assert.equal(await firstExit, 0);
    assert.match(first, /^export PRESEND_DNS_SERVERS=127\.0\.0\.1:\d+$/m);
    assert.match(first, /alice@acme\.test\s+DELIVERABLE/);

    // The port the first run picked is free again now that it stopped.
    const fixed = startCli(['--port', String(port)]);
    const second = await fixed.output;
    assert.match(second, new RegExp(`^export PRESEND_SMTP_PORT=${port}$`, 'm'));
    const secondExit = exitCode(fixed.child);
    fixed.child.kill('SIGINT');
    assert.equal(await secondExit, 0);
  });
});
