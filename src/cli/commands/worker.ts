/** `presend worker`: only a batch worker, on the same store as the API nodes (the wiring: src/processes/worker.ts). */
import type { Command } from 'commander';
import { ConfigError, loadCommandConfig } from '../../config.js';
import type { PresendConfig } from '../../config.js';
import { createLogger } from '../../logger.js';
import { startWorker } from '../../processes/worker.js';

export function register(program: Command): void {
  program
    .command('worker')
    .description('Run a batch worker without the HTTP service.')
    .option('--database <url>', 'store URL (default PRESEND_DATABASE_URL or sqlite:./data/presend.db)')
    .action(async (flags: { database?: string }) => {
      let config: PresendConfig;
      try {
        config = loadCommandConfig({ PRESEND_DATABASE_URL: flags.database || undefined });
      } catch (err) {
        process.stderr.write(`presend worker: ${err instanceof Error ? err.message : String(err)}\n`);
        process.exit(err instanceof ConfigError ? 2 : 1);
      }
      const logger = createLogger(config.logLevel);
      const worker = await startWorker(config, logger).catch((err: unknown) => {
        // e.g. the store cannot be opened: say so in one line.
        process.stderr.write(`presend worker: ${err instanceof Error ? err.message : String(err)}\n`);
        process.exit(1);
      });
      logger.info({ owner: worker.owner, store: worker.backend.kind }, 'presend worker running');
      const stop = (signal: string) => {
        logger.info({ signal }, 'shutting down');
        void worker.close().then(
          () => process.exit(0),
          () => process.exit(1),
        );
      };
      process.once('SIGTERM', () => stop('SIGTERM'));
      process.once('SIGINT', () => stop('SIGINT'));
    });
}
