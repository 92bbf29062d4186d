/**
 * `presend batch FILE|-` — verify the addresses of a file of any size and, with --out, get
 * the file back with result columns (src/cli/file-batch); or `--list-id ID` — verify a stored
 * list as one batch (POST /v1/requests {listId}) and export its results. The service holds
 * one credit per unique address and releases what non-verdicts do not use.
 */
import type { Command } from 'commander';
import type { BatchRequest } from '../../client/index.js';
import { runFileBatch, type FileBatchFlags } from '../file-batch/run.js';
import { addTableOptions } from '../file-batch/input.js';
import { nextSteps, renderBatch, waitWithProgress } from '../output/batch-view.js';
import { addConnectionOptions, runCaller, type CallerContext, type ConnectionFlags } from '../output/caller.js';
import { UsageError } from '../output/exit-codes.js';
import { exportToOutput } from '../output/export-run.js';
import { chooseFormat } from '../output/result-writer.js';
import { plural } from '../file-batch/report.js';

interface BatchFlags extends ConnectionFlags, FileBatchFlags {
  listId?: string;
}

async function runListBatch(listId: string, flags: BatchFlags, context: CallerContext): Promise<number> {
  const { client, json, note, progress } = context;
  if (flags.only !== undefined || flags.column !== undefined || flags.delimiter !== undefined || flags.sheet !== undefined) {
    throw new UsageError('--only, --column, --delimiter and --sheet apply to a FILE, not to --list-id');
  }
  const exportFormat = flags.out !== undefined || flags.format !== undefined ? chooseFormat(flags) : null;
  let batch: BatchRequest = await client.createRequest({ listId });
  const id = batch.request.id;
  // A list batch is filled in the background: its duplicates and invalid entries are known once the list is read.
  note(`batch ${id} ${batch.replayed ? 'replayed' : 'created'}: ${plural(batch.counters.total ?? 0, 'list entry', 'list entries')}`);
  if (flags.wait || exportFormat !== null) {
    batch = await waitWithProgress(client, id, progress);
    note(`${plural(batch.counters.unique ?? 0, 'unique address', 'unique addresses')} verified (${plural(batch.counters.duplicates ?? 0, 'duplicate')})`);
  }
  if (exportFormat !== null) {
    await exportToOutput(client, id, { format: exportFormat, ...(flags.out !== undefined ? { out: flags.out } : {}), note, progress });
    // Results go to stdout unless --out; the summary then goes to stderr to keep stdout data.
    if (flags.out === undefined) {
      note(renderBatch(batch).trimEnd());
      return batch.request.state === 'failed' ? 1 : 0;
    }
  }
  progress.stop();
  if (json) process.stdout.write(JSON.stringify(batch, null, 2) + '\n');
  else process.stdout.write(renderBatch(batch) + '\n' + nextSteps(batch) + '\n');
  return batch.request.state === 'failed' ? 1 : 0;
}

export function register(program: Command): void {
  const command = program
    .command('batch')
    .description('Verify the addresses of a CSV/TSV/XLSX file (any size) or a stored list, and write your file back with result columns.')
    .argument('[file]', 'CSV, TSV, semicolon-separated or XLSX file (or one address per line); - reads stdin')
    .option('--out <file>', 'write your file back with the result columns once everything is verified (implies --wait; format from the extension: .csv, .tsv, .xlsx, .json, .ndjson)')
    .option('--format <format>', 'results file format: csv, xlsx, json or ndjson (without --out: csv/json/ndjson on stdout)')
    .option('--only <sets>', 'keep only the rows whose decision is in these sets: send, suppress, risky, unknown (comma-separated)')
    .option('--wait', 'wait until every batch is completed or failed (one progress bar on a terminal)')
    .option('--fresh', 'verify again as new batches (billed again) instead of resuming the batches an earlier run of the same addresses created')
    .option('--list-id <id>', 'verify a stored, ready list instead of a file');
  addConnectionOptions(addTableOptions(command)).addHelpText(
    'after',
    `
Examples:
  $ presend batch leads.csv --out results.csv
  $ presend batch contacts.xlsx --out cleaned.xlsx --only send
  $ presend batch export.csv --column "Work Email" --delimiter ';' --out results.csv
  $ cut -d, -f3 crm-export.csv | presend batch - --wait --json
  $ presend batch --list-id 6f1c…-… --wait --format ndjson > results.ndjson

The results file has one row per row of your file, in the same order, with all of your
columns, then presend_line, presend_row, presend_email, presend_normalized_email,
presend_status, presend_decision, presend_verdict, presend_reasons, presend_confidence,
presend_score, presend_did_you_mean, presend_duplicate_of, presend_provider_family,
presend_evidence_class, presend_checked_at, presend_error. Invalid addresses stay in the file
(presend_error says why, with their line); duplicates and blank rows stay too.

Files of any size: duplicates are removed first, then the addresses go in batches of at most
10,000, each with an Idempotency-Key derived from its addresses, so running the same command
again picks up the same batches (replayed, not billed again) instead of starting over.

Exit codes: 0 done (invalid rows included), 1 other error (including a failed batch),
2 usage or file not found, 3 bad key, 4 not enough credits, 5 rate limited, 6 the file
cannot be read as a table (the message names the line).`,
  );
  command.action(async (file: string | undefined, flags: BatchFlags) => {
    await runCaller(flags, async (context) => {
      if (flags.listId !== undefined && file !== undefined) throw new UsageError('give either FILE or --list-id, not both');
      if (flags.listId !== undefined) return runListBatch(flags.listId, flags, context);
      if (file === undefined) throw new UsageError('give a FILE (or - for stdin) or --list-id ID');
      return runFileBatch(context.client, file, flags, context);
    });
  });
}
