/**
 * `presend verify ADDRESS…` — POST /v1/verify once per address, each with its own
 * Idempotency-Key. A 202 is shown as pending with its engineJobId: it is not a verdict and is
 * not resubmitted (docs/interface-spec.md §4).
 */
import type { Command } from 'commander';
import { PresendApiError, type VerifyResult } from '../../client/index.js';
import { addConnectionOptions, integerOption, runCaller, type ConnectionFlags } from '../output/caller.js';
import { EXIT } from '../output/exit-codes.js';
import { flattenVerifyResult } from '../output/flatten.js';
import { renderTable } from '../output/table.js';

interface VerifyFlags extends ConnectionFlags {
  timeout?: number;
}

interface Checked {
  email: string;
  result?: VerifyResult;
  error?: { code: string; message: string; status: number; requestId: string | null };
}

function row(checked: Checked): string[] {
  if (checked.error) return [checked.email, 'error', checked.error.code, '', '', checked.error.message];
  const flat = flattenVerifyResult(checked.email, checked.result as VerifyResult);
  const pending = checked.result?.status !== 'completed';
  return [flat.email, pending ? 'pending' : flat.decision || '(none)', flat.verdict, flat.confidence, flat.billing_credits, flat.reasons];
}

export function register(program: Command): void {
  const command = program
    .command('verify')
    .description('Verify addresses one by one (synchronous, bounded wait). 1 credit per actionable verdict; unknowns are free.')
    .argument('<address...>', 'one or more email addresses')
    .option('--timeout <ms>', 'bound on the synchronous wait, 1–120000 ms (does not change quality)', integerOption('--timeout', 1, 120_000));
  addConnectionOptions(command).addHelpText(
    'after',
    `
Examples:
  $ PRESEND_API_KEY=ps_test.… presend verify deliverable@example.com undeliverable@example.com
  $ presend verify someone@example.org --timeout 5000 --json | jq '.[0].presend.decision'

A "pending" line means the wait ended before the check finished (HTTP 202): it is not a
verdict and not permission to send. Its engine job id is printed; do not resubmit it.
Exit codes: 0 done, 1 other error, 2 usage, 3 bad key, 4 no credits, 5 rate limited.`,
  );
  command.action(async (addresses: string[], flags: VerifyFlags) => {
    await runCaller(flags, async ({ client, json, note }) => {
      const checked: Checked[] = [];
      let code: number = EXIT.ok;
      for (const email of addresses) {
        try {
          const result = await client.verify({ email, ...(flags.timeout !== undefined ? { timeoutMs: flags.timeout } : {}) });
          checked.push({ email, result });
        } catch (error) {
          // A rejected address (400) is that address's problem; keep going with the rest.
          if (error instanceof PresendApiError && error.status === 400) {
            checked.push({ email, error: { code: error.code, message: error.message, status: error.status, requestId: error.requestId } });
            code = EXIT.failure;
            continue;
          }
          if (checked.length > 0 && !json) process.stdout.write(renderTable(HEADERS, checked.map(row)));
          throw error;
        }
      }
      if (json) {
        process.stdout.write(JSON.stringify(checked.map((c) => c.result ?? { email: c.email, error: c.error }), null, 2) + '\n');
      } else {
        process.stdout.write(renderTable(HEADERS, checked.map(row)));
      }
      for (const { email, result } of checked) {
        if (result && result.status !== 'completed') {
          note(`${email}: still ${result.status} (engine job ${result.engineJobId ?? '?'}, request ${result.requestId}). No verdict yet; do not resubmit. For a result you can fetch later, verify it in a batch.`);
        }
      }
      return code;
    });
  });
}

const HEADERS = ['email', 'decision', 'verdict', 'confidence', 'credits', 'reasons'];
