/**
 * `presend job ID` — GET /v1/requests/{id}: state, progress flags and counters of a batch;
 * with --wait, polls until it is completed or failed.
 */
import type { Command } from 'commander';
import { nextSteps, renderBatch, waitWithProgress } from '../output/batch-view.js';
import { addConnectionOptions, runCaller, type ConnectionFlags } from '../output/caller.js';

interface JobFlags extends ConnectionFlags {
  wait?: boolean;
}

export function register(program: Command): void {
  const command = program
    .command('job')
    .description('Show the state and counters of a batch request (free, read-only).')
    .argument('<id>', 'the request id printed by `presend batch`')
    .option('--wait', 'poll until the batch is completed or failed');
  addConnectionOptions(command).addHelpText(
    'after',
    `
Examples:
  $ presend job 0b6c3f0e-6a43-4a4e-9a53-0d4c2a1f7e21
  $ presend job 0b6c3f0e-6a43-4a4e-9a53-0d4c2a1f7e21 --wait --json | jq .counters

Exit codes: 0 done, 1 other error (including a failed batch with --wait), 2 usage, 3 bad key, 5 rate limited.`,
  );
  command.action(async (id: string, flags: JobFlags) => {
    await runCaller(flags, async ({ client, json, progress }) => {
      let batch;
      if (flags.wait) {
        batch = await waitWithProgress(client, id, progress);
      } else {
        batch = await client.getRequest(id);
      }
      if (json) process.stdout.write(JSON.stringify(batch, null, 2) + '\n');
      else process.stdout.write(renderBatch(batch) + '\n' + nextSteps(batch) + '\n');
      return flags.wait && batch.request.state === 'failed' ? 1 : 0;
    });
  });
}
