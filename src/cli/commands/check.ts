/**
 * `presend check ADDRESS…` — runs the verification engine in this process (no service, no
 * key, no credits), from the same environment as the service (loadConfig). For operators:
 * "what would the engine say about this address from this machine?"
 */
import type { Command } from 'commander';
import { ConfigError, loadConfig, missingProbeIdentity, type PresendConfig } from '../../config.js';
import { createEngine } from '../../core/index.js';
import type { EngineResult } from '../../core/index.js';
import { EXIT } from '../output/exit-codes.js';
import { renderTable } from '../output/table.js';

function row(result: EngineResult): string[] {
  const e = result.envelope;
  return [
    result.email,
    e.verdict ?? '-',
    e.decision ?? '-',
    e.confidence === null ? '-' : e.confidence.toFixed(2),
    [...e.reasons, ...(result.didYouMean ? [`did you mean ${result.didYouMean}?`] : [])].join(', '),
  ];
}

export function register(program: Command): void {
  program
    .command('check')
    .description('Verify addresses with the engine in this process (no service, no credits): DNS and SMTP probes from this machine.')
    .argument('<address...>', 'one or more email addresses')
    .option('--json', 'print the engine results as JSON')
    .addHelpText(
      'after',
      `
Examples:
  $ PRESEND_HELO_NAME=probe.example.com PRESEND_MAIL_FROM=verify@example.com presend check alice@example.org
  $ presend check bob@example.org carol@example.net --json

Reads the same environment as \`presend serve\` (PRESEND_DNS_SERVERS, PRESEND_SMTP_PROXY, …).
Exit codes: 0 it ran (whatever the verdicts), 2 usage or configuration error.`,
    )
    .action(async (addresses: string[], flags: { json?: boolean }) => {
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
      const results = new Map<string, EngineResult>();
      try {
        await engine.verifyMany(addresses, (result) => {
          results.set(result.input, result);
        });
      } finally {
        await engine.close();
      }
      const ordered = addresses.flatMap((address) => results.get(address) ?? []);
      if (flags.json) process.stdout.write(`${JSON.stringify(ordered, null, 2)}\n`);
      else process.stdout.write(renderTable(['address', 'verdict', 'decision', 'confidence', 'reasons'], ordered.map(row)));
      process.exitCode = EXIT.ok;
    });
}
