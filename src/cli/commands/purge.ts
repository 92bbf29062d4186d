/**
 * `presend purge`: delete requests past their retentionExpiresAt now, and failed list imports'
 * entries (serve also does it periodically), in small transactions (PRESEND_PURGE_CHUNK rows)
 * so a running server keeps answering.
 */
import type { Command } from 'commander';
import { runAdmin } from '../output/admin-command.js';

export function register(program: Command): void {
  program
    .command('purge')
    .description(
      'Delete batch requests and results past retention (PRESEND_RETENTION_DAYS after finalization), the entries of failed list imports, webhook events whose deliveries ended that long ago, and feedback events older than PRESEND_FEEDBACK_EVENTS_RETENTION_DAYS (the address summaries stay).',
    )
    .option('--database <url>', 'store URL (default PRESEND_DATABASE_URL or sqlite:./data/presend.db)')
    .option('--json', 'print JSON')
    .action(async (flags: { database?: string; json?: boolean }) =>
      runAdmin(flags, async (backend, config) => {
        // An import whose process died is failed first, so its entries go too.
        const lapsedImports = await backend.leases.endLapsed('listImport', new Date());
        const purged = await backend.retention.purgeExpired(new Date(), config.retentionDays, { chunk: config.purgeChunk, feedbackEventsRetentionDays: config.feedbackEventsRetentionDays });
        const webhookEvents = await backend.webhooks.purgeFinished(new Date(Date.now() - config.retentionDays * 86_400_000));
        return {
          text: `purged ${purged.requests} request(s), ${purged.verifications} verification(s), ${purged.idempotencyRecords} idempotency record(s), the entries of ${purged.failedLists} failed list import(s), ${purged.signInFailures} failed sign-in(s), ${purged.feedbackEvents} feedback event(s), ${webhookEvents} delivered or failed webhook event(s)`,
          json: { ...purged, lapsedImports, webhookEvents },
        };
      }),
    );
}
