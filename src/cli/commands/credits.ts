/** `presend credits grant --account NAME N` (docs/design.md §3): credits never expire. */
import type { Command } from 'commander';
import { grantCredits } from '../../service/operations/admin.js';
import { parseWholeNumber, runAdmin } from '../output/admin-command.js';

export function register(program: Command): void {
  const credits = program.command('credits').description('Manage credits in the local store (admin).');
  credits
    .command('grant <n>')
    .description('Add N credits to an account.')
    .requiredOption('--account <name>', 'account name')
    .option('--database <url>', 'store URL (default PRESEND_DATABASE_URL or sqlite:./data/presend.db)')
    .option('--json', 'print JSON')
    .addHelpText('after', '\nExample:\n  $ presend credits grant --account acme 5000')
    .action(async (n: string, flags: { account: string; database?: string; json?: boolean }) =>
      runAdmin(flags, async (backend) => {
        const granted = await grantCredits(backend, flags.account, parseWholeNumber(n, 'credits'));
        if (granted.kind === 'refused') return granted;
        const balance = granted.value;
        return { text: `${flags.account}: ${balance.available} credits available (${balance.held} held)`, json: { balance } };
      }),
    );
}
