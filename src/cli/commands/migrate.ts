/** `presend migrate`: apply the store's pending migrations (serve and worker also do it at start). */
import type { Command } from 'commander';
import { runAdmin } from '../output/admin-command.js';

export function register(program: Command): void {
  program
    .command('migrate')
    .description('Create or upgrade the store schema.')
    .option('--database <url>', 'store URL (default PRESEND_DATABASE_URL or sqlite:./data/presend.db)')
    .option('--json', 'print JSON')
    .action(async (flags: { database?: string; json?: boolean }) =>
      runAdmin(flags, async (backend) => ({ text: `store ready (${backend.kind})`, json: { store: backend.kind, migrated: true } })),
    );
}
