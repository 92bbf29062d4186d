/**
 * `presend check ADDRESS…` — runs the verification engine in this process (no service, no
 * key, no credits), from the same environment as the service (loadConfig). For operators:
 * "what would the engine say about this address from this machine?"
 */
import type { Command } from 'commander';
import { ConfigError, loadConfig, missingProbeIdentity, type PresendConfig } from '../../config.js';
import { createEngine } from '../../core/index.js';
import { createCheckOutput } from '../output/check-output.js';
import { EXIT } from '../output/exit-codes.js';
import { createProgress } from '../output/progress.js';

export function register(program: Command): void {
  program
    .command('check')
    .description('Verify addresses with the engine in this process (no service, no credits): DNS and SMTP probes from this machine.')
    .argument('<address...>', 'one or more email addresses')
    .option('--json', 'print the engine results as one JSON array, in the order given, once all are known')
    .option('--jsonl', 'print one JSON line per address as soon as its result is known')
    .option('--explain', 'show how each verdict was reached: DNS, MX hosts, the SMTP conversation, the catch-all probe, the reply-table row (with --json/--jsonl: an `evidence` field beside the envelope)')
    .addHelpText(
      'after',
      `
Examples:
  $ PRESEND_HELO_NAME=probe.example.com PRESEND_MAIL_FROM=verify@example.com presend check alice@example.org
  $ presend check bob@example.org carol@example.net --json
  $ presend check $(cat addresses.txt) --jsonl > results.jsonl
  $ presend check alice@example.org --explain

Results print as each becomes final (table rows and --jsonl lines, in the order they are
known); a run that takes more than a second shows a progress bar on stderr (on a terminal).
An address whose mail server kept throttling this machine shows (recheck_scheduled), reason
host_throttled: it was not asked; check it again later.

Reads the same environment as \`presend serve\` (PRESEND_DNS_SERVERS, PRESEND_SMTP_PROXY, …).
Exit codes: 0 it ran (whatever the verdicts), 2 usage or configuration error.`,
    )
    .action(async (addresses: string[], flags: { json?: boolean; jsonl?: boolean; explain?: boolean }) => {
      if (flags.json && flags.jsonl) {
        process.stderr.write('presend check: give --json or --jsonl, not both\n');
        process.exit(EXIT.usage);
      }
      let config: PresendConfig;
      try {
        config = loadConfig();
      } catch (error) {
        if (!(error instanceof ConfigError)) throw error;
        process.stderr.write(`presend check: ${error.message}\n`);
        process.exit(EXIT.usage);
      }
      const missing = missingProbeIdentity(config);
      if (missing.length > 0) {
        process.stderr.write(
          `presend check: mailbox probes are off until you set ${missing.join(' and ')}.\n` +
            'Results below come from syntax, lists and DNS only (UNKNOWN, probe_not_configured where a probe was needed).\n',
        );
      }
      const engine = createEngine(config);
      const explain = flags.explain === true;
      const output = createCheckOutput(flags.jsonl ? 'jsonl' : flags.json ? 'json' : 'table', addresses, process.stdout, createProgress(), Date.now, explain);
      try {
        await engine.verifyMany(addresses, (result) => output.add(result), { explain });
      } finally {
        output.end();
        await engine.close();
      }
      process.exitCode = EXIT.ok;
    });
}
