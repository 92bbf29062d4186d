/**
 * `presend results ID` — GET /v1/requests/{id}/results. One page by default (with the
 * cursor for the next one); with --all, a full export that follows nextCursor until the
 * request is finalized and refuses to pass off an incomplete collection as complete.
 */
import type { Command } from 'commander';
import { addConnectionOptions, integerOption, runCaller, type ConnectionFlags } from '../output/caller.js';
import { UsageError } from '../output/exit-codes.js';
import { exportToOutput } from '../output/export-run.js';
import { chooseFormat, createResultWriter } from '../output/result-writer.js';

interface ResultsFlags extends ConnectionFlags {
  all?: boolean;
  limit?: number;
  cursor?: string;
  format?: string;
  out?: string;
}

export function register(program: Command): void {
  const command = program
    .command('results')
    .description('Read the results of a batch request: one page, or everything with --all (free, read-only).')
    .argument('<id>', 'the request id printed by `presend batch`')
    .option('--all', 'export every result, waiting for a running batch to finish')
    .option('--limit <n>', 'page size, 1–200 (default 50 for one page, 200 for --all)', integerOption('--limit', 1, 200))
    .option('--cursor <cursor>', 'start after this cursor (the nextCursor of an earlier page)')
    .option('--format <format>', 'csv, json or ndjson (default: from --out, else a table on a terminal, NDJSON in a pipe)')
    .option('--out <file>', 'write to FILE (written as FILE.partial until complete)');
  addConnectionOptions(command).addHelpText(
    'after',
    `
Examples:
  $ presend results 0b6c3f0e-6a43-4a4e-9a53-0d4c2a1f7e21
  $ presend results 0b6c3f0e-6a43-4a4e-9a53-0d4c2a1f7e21 --all --out results.csv
  $ presend results 0b6c3f0e-6a43-4a4e-9a53-0d4c2a1f7e21 --limit 200 --cursor "$NEXT" --json

CSV columns: email, state, decision, verdict, confidence, score, reasons (;-separated),
evidence_class, provider_family, billing_disposition, billing_credits, did_you_mean, checked_at.
A null decision is not permission to send. Exit codes: 0 done, 1 other error (including an
incomplete export), 2 usage, 3 bad key, 5 rate limited.`,
  );
  command.action(async (id: string, flags: ResultsFlags) => {
    await runCaller(flags, async ({ client, json, note, progress }) => {
      const format = chooseFormat(flags);
      if (flags.all) {
        await exportToOutput(client, id, {
          format,
          ...(flags.out !== undefined ? { out: flags.out } : {}),
          ...(flags.limit !== undefined ? { limit: flags.limit } : {}),
          ...(flags.cursor !== undefined ? { cursor: flags.cursor } : {}),
          note,
          progress,
        });
        return 0;
      }
      const page = await client.getResults(id, {
        ...(flags.limit !== undefined ? { limit: flags.limit } : {}),
        ...(flags.cursor !== undefined ? { cursor: flags.cursor } : {}),
      });
      // --json alone prints the whole page, cursor and flags included, for scripts that page.
      if (json && flags.format === undefined && flags.out === undefined) {
        process.stdout.write(JSON.stringify(page, null, 2) + '\n');
        return 0;
      }
      if (flags.out !== undefined && format === 'table') throw new UsageError('--out needs --format csv, json or ndjson');
      const writer = createResultWriter(format, flags.out);
      for (const item of page.results) await writer.write(item);
      await writer.finish();
      const state = page.finalized ? 'finalized' : page.countsMayChange ? 'still running' : 'stopped, not finalized';
      note(
        page.nextCursor !== null
          ? `${page.results.length} results (${state}); next page: presend results ${id} --cursor ${page.nextCursor}`
          : `${page.results.length} results (${state}); no more pages${page.finalized ? '' : ' as of now'}`,
      );
      return 0;
    });
  });
}
