/** `presend worker`: only a batch worker, on the same store as the API nodes (scale-out, docs/design.md §1). */
import type { Command } from 'commander';
import { ConfigError, loadCommandConfig } from '../../config.js';
import type { PresendConfig } from '../../config.js';
import { createLogger } from '../../logger.js';
import { openBackend } from '../../store/open-backend.js';
import { BatchRunner, batchRunnerOptions } from '../../service/batch-runner.js';
import { ListBatchFiller, listBatchFillerOptions } from '../../service/list-batch-fill.js';
import { loadEngines } from '../../service/load-engines.js';
import { closeEngines } from '../../service/engines.js';
import { ProberHealthMonitor } from '../../service/prober-health/monitor.js';

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
      const backend = await openBackend(config.databaseUrl, { config, longRunning: true, log: logger });
      // The engine's session limiter and facts cache come from the backend: shared with every other worker on PostgreSQL.
      const engines = loadEngines(config, backend.engineState);
      const worker = new BatchRunner(batchRunnerOptions(config, backend, engines, logger.child({ part: 'worker' })));
      worker.start();
      // List batches whose filling process died are resumed here too.
      const filler = new ListBatchFiller(listBatchFillerOptions(config, backend, logger.child({ part: 'list-fill' })));
      filler.start();
      logger.info({ owner: worker.owner, store: backend.kind }, 'presend worker running');
      // The prober's cheap health checks in the start-up log (then again when what is wrong changes).
      const proberHealth = engines.liveChecksOff === undefined ? new ProberHealthMonitor(config, logger.child({ part: 'prober-health' })) : null;
      proberHealth?.start();
      const stop = async (signal: string) => {
        logger.info({ signal }, 'shutting down');
        proberHealth?.stop();
        await Promise.all([worker.stop(), filler.stop()]);
        await closeEngines(engines);
        await backend.close();
        process.exit(0);
      };
      process.once('SIGTERM', () => void stop('SIGTERM'));
      process.once('SIGINT', () => void stop('SIGINT'));
    });
}
