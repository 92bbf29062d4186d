/**
 * `presend mailworld` — starts the default simulated mail world on loopback and prints the
 * environment an engine needs to live in it, plus sample addresses with their expected
 * verdicts. Runs until Ctrl-C.
 */
import type { Command } from 'commander';
import { defaultWorld, startMailWorld } from '../../mailworld/index.js';

/**
 * The printed setting opens loopback only (127.0.0.0/8, ::1): pasting it must not let the
 * engine probe the user's own network (`true` would open 10/8, 172.16/12, 192.168/16 and
 * link-local too). Every host of the default world, served or only published, sits on
 * loopback, so every sample gets the verdict the table expects under this setting
 * (test/mailworld/cli.test.ts checks it).
 */
const LOOPBACK_ONLY = 'loopback';

interface MailworldFlags {
  json?: boolean;
  port?: string;
}

function parsePort(value: string | undefined): number {
  if (value === undefined) return 0;
  const port = Number(value);
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    process.stderr.write(`presend mailworld: --port must be 1–65535, got "${value}"\n`);
    process.exit(2);
  }
  return port;
}

export function register(program: Command): void {
  program
    .command('mailworld')
    .description('Run a simulated internet of DNS and SMTP servers on 127.0.0.x for trying the engine offline.')
    .option('--json', 'print the environment and the sample addresses as JSON')
    .option('--port <n>', 'SMTP port shared by every simulated host (default: a free one)')
    .addHelpText(
      'after',
      `
Examples:
  $ presend mailworld                      # prints export lines, then runs until Ctrl-C
  $ presend mailworld --port 2525 --json

In another shell, paste the export lines, then verify any sample address.`,
    )
    .action(async (flags: MailworldFlags) => {
      // Listen for the stop signal before anything is printed: a script may send it at once.
      const stopped = new Promise<void>((resolve) => {
        const stop = (): void => resolve();
        process.once('SIGINT', stop);
        process.once('SIGTERM', stop);
      });
      const spec = defaultWorld();
      // The expected verdicts are those of a first check, as `presend check` makes it: a
      // greylisted address is GREYLISTED then (checked again later, or rechecked in a batch,
      // it gets the mailbox's verdict).
      const world = await startMailWorld({ ...spec, smtpPort: parsePort(flags.port) }, { truth: { greylisted: 'first' } });
      const env = { ...world.env(), PRESEND_ALLOW_PRIVATE_MX: LOOPBACK_ONLY };
      const samples = spec.samples.map((s) => ({ ...s, expected: world.expectedVerdict(s.email) }));
      if (flags.json) {
        const hosts = Object.fromEntries(spec.hosts.map((h) => [h.name, world.hostIp(h.name)]));
        const dns = { host: world.dns.host, port: world.dns.port };
        process.stdout.write(JSON.stringify({ env, dns, smtpPort: world.smtpPort, hosts, samples }, null, 2) + '\n');
      } else {
        const lines = Object.entries(env).map(([k, v]) => `export ${k}=${v}`);
        const width = Math.max(...samples.map((s) => s.email.length));
        const verdictWidth = Math.max(...samples.map((s) => s.expected.length));
        const table = samples.map((s) => `  ${s.email.padEnd(width)}  ${s.expected.padEnd(verdictWidth)}  ${s.about}`);
        process.stdout.write(
          `Mail world running: DNS ${world.dns.host}:${world.dns.port} (UDP+TCP), SMTP hosts on 127.0.0.x:${world.smtpPort}\n\n` +
            `${lines.join('\n')}\n\nSample addresses and the verdict a first \`presend check\` gives (a greylisted address passes when checked again a little later, or rechecked in a batch):\n${table.join('\n')}\n\nCtrl-C to stop.\n`,
        );
      }
      await stopped;
      await world.close();
    });
}
