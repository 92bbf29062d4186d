/** `presend worker`: only a batch worker, on the same store as the API nodes (scale-out, docs/design.md §1). */
import type { Command } from 'commander';
import { ConfigError, loadConfig } from '../../config.js';
import type { PresendConfig } from '../../config.js';
import { openStore } from '../../store/open-store.js';
import { openQueue } from '../../queue/open-queue.js';
import { BatchWorker } from '../../queue/worker.js';
import { loadEngines } from '../../service/load-engines.js';
import { closeEngines } from '../../service/engines.js';
import { workerTuning } from '../../service/worker-tuning.js';
import { openSharedEngineState } from '../../store/postgres/shared-engine-state.js';

export function register(program: Command): void {
  program
    .command('worker')
    .description('Run a batch worker without the HTTP service.')
    .option('--database <url>', 'store URL (default PRESEND_DATABASE_URL or sqlite:./data/presend.db)')
    .action(async (flags: { database?: string }) => {
      let config: PresendConfig;
      let tuning: ReturnType<typeof workerTuning>;
      try {
        config = loadConfig(process.env, flags.database ? { databaseUrl: flags.database } : {});
        tuning = workerTuning();
      } catch (err) {
        process.stderr.write(`presend worker: ${err instanceof Error ? err.message : String(err)}\n`);
        process.exit(err instanceof ConfigError ? 2 : 1);
      }
      const store = await openStore(config.databaseUrl, { longRunning: true });
      const queue = await openQueue(config.databaseUrl);
      // On PostgreSQL the per-MX session limit and the domain facts are shared with every other worker.
      const shared = await openSharedEngineState(config);
      const engines = loadEngines(config, process.env, shared?.deps);
      const log = (msg: string, extra?: Record<string, unknown>) =>
        process.stderr.write(JSON.stringify({ level: 'warn', time: Date.now(), msg, ...extra }) + '\n');
      const worker = new BatchWorker({
        store,
        queue,
        engines,
        recheckDelayMs: config.recheckDelayMs,
        retentionDays: config.retentionDays,
        chunkSize: config.workerConcurrency,
        log,
        ...tuning,
      });
      worker.start();
      process.stderr.write(JSON.stringify({ level: 'info', time: Date.now(), msg: 'presend worker running', owner: worker.owner, store: store.kind }) + '\n');
      const stop = async () => {
        await worker.stop();
        await queue.close();
        await closeEngines(engines);
        await shared?.close();
        await store.close();
        process.exit(0);
      };
      process.once('SIGTERM', () => void stop());
      process.once('SIGINT', () => void stop());
    });
}
