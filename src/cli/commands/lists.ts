/** `presend lists import FILE --account NAME [--name LABEL]` (DESIGN.md §3): prints the list id when ready. */
import type { Command } from 'commander';
import { importList, runAdmin } from '../../service/admin.js';

export function register(program: Command): void {
  const lists = program.command('lists').description('Manage stored lists (admin); verify them with POST /v1/requests {"listId": …}.');
  lists
    .command('import <file>')
    .description('Import a CSV (a column named "email", else the first column) as a list of the account.')
    .requiredOption('--account <name>', 'account name')
    .option('--name <label>', 'a label for the list')
    .option('--database <url>', 'store URL (default PRESEND_DATABASE_URL or sqlite:./data/presend.db)')
    .option('--json', 'print JSON')
    .addHelpText('after', '\nExample:\n  $ presend lists import customers.csv --account acme --name "Q3 customers"')
    .action(async (file: string, flags: { account: string; name?: string; database?: string; json?: boolean }) =>
      runAdmin(flags, async (backend) => {
        const list = await importList(backend, flags.account, file, flags.name ?? null);
        return { text: list.id, json: { id: list.id, name: list.name, state: list.state, entries: list.entries } };
      }),
    );
}
