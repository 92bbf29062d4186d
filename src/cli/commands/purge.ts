/** `presend purge`: delete requests past their retentionExpiresAt now (serve also does it periodically). */
import type { Command } from 'commander';
import { runAdmin } from '../output/admin-command.js';

export function register(program: Command): void {
  program
    .command('purge')
    .description('Delete batch requests and results past retention (PRESEND_RETENTION_DAYS after finalization).')
    .option('--database <url>', 'store URL (default PRESEND_DATABASE_URL or sqlite:./data/presend.db)')
    .option('--json', 'print JSON')
    .action(async (flags: { database?: string; json?: boolean }) =>
      runAdmin(flags, async (backend, config) => {
        const purged = await backend.retention.purgeExpired(new Date(), config.retentionDays);
        return { text: `purged ${purged.requests} request(s), ${purged.verifications} verification(s), ${purged.idempotencyRecords} idempotency record(s)`, json: purged };
      }),
    );
}
