/**
 * `presend batch FILE|-` — POST /v1/requests with the addresses of a file (or a stored list
 * with --list-id), then optionally wait for it and export its results. The service holds
 * one credit per unique address at creation and releases what non-verdicts do not use.
 */
import type { Command } from 'commander';
import type { BatchInput, BatchRequest } from '../../client/index.js';
import { readAddressList } from '../output/address-list.js';
import { nextSteps, renderBatch, waitWithProgress } from '../output/batch-view.js';
import { addConnectionOptions, runCaller, type ConnectionFlags } from '../output/caller.js';
import { UsageError } from '../output/exit-codes.js';
import { exportToOutput } from '../output/export-run.js';
import { chooseFormat } from '../output/result-writer.js';

interface BatchFlags extends ConnectionFlags {
  listId?: string;
  wait?: boolean;
  out?: string;
  format?: string;
}

async function inputFrom(file: string | undefined, flags: BatchFlags): Promise<BatchInput> {
  if (flags.listId !== undefined && file !== undefined) throw new UsageError('give either FILE or --list-id, not both');
  if (flags.listId !== undefined) return { listId: flags.listId };
  if (file === undefined) throw new UsageError('give a FILE (or - for stdin) or --list-id ID');
  return { emails: await readAddressList(file) };
}

export function register(program: Command): void {
  const command = program
    .command('batch')
    .description('Verify many addresses asynchronously (up to 10,000, or a stored list). Holds 1 credit per unique address; non-verdicts are released.')
    .argument('[file]', 'CSV with an "email" column (else the first column is used), or one address per line; - reads stdin')
    .option('--list-id <id>', 'verify a stored, ready list instead of a file')
    .option('--wait', 'wait until the batch is completed or failed, with a progress bar on a terminal')
    .option('--out <file>', 'write all results to FILE once complete (implies --wait; format from the extension)')
    .option('--format <format>', 'results format: csv, json or ndjson (with --out or --wait; default csv for --out)');
  addConnectionOptions(command).addHelpText(
    'after',
    `
Examples:
  $ presend batch leads.csv --wait --out results.csv
  $ cut -d, -f3 crm-export.csv | presend batch - --json
  $ presend batch --list-id 6f1c…-… --wait --format ndjson > results.ndjson

Without --wait the request id is printed; follow it with \`presend job ID --wait\` and fetch
results with \`presend results ID --all\`. Exit codes: 0 done, 1 other error (including a
failed batch), 2 usage, 3 bad key, 4 not enough credits, 5 rate limited.`,
  );
  command.action(async (file: string | undefined, flags: BatchFlags) => {
    await runCaller(flags, async ({ client, json, note }) => {
      const input = await inputFrom(file, flags);
      const exportFormat = flags.out !== undefined || flags.format !== undefined ? chooseFormat(flags) : null;
      let batch: BatchRequest = await client.createRequest(input);
      const id = batch.request.id;
      note(`batch ${id} ${batch.replayed ? 'replayed' : 'created'}: ${batch.counters.unique ?? '?'} unique addresses`);

      if (flags.wait || exportFormat !== null) {
        batch = await waitWithProgress(client, id);
      }

      if (exportFormat !== null) {
        await exportToOutput(client, id, { format: exportFormat, ...(flags.out !== undefined ? { out: flags.out } : {}), note });
        // Results go to stdout unless --out; the summary then goes to stderr to keep stdout data.
        if (flags.out === undefined) {
          note(renderBatch(batch).trimEnd());
          return batch.request.state === 'failed' ? 1 : 0;
        }
      }
      if (json) process.stdout.write(JSON.stringify(batch, null, 2) + '\n');
      else process.stdout.write(renderBatch(batch) + '\n' + nextSteps(batch) + '\n');
      return batch.request.state === 'failed' ? 1 : 0;
    });
  });
}
