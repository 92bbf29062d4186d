/**
 * Wiring of `presend worker`: a batch worker without the HTTP service, on the same store as the
 * API nodes (scale-out, docs/design.md §1) — backend → engines → batch runner, the list-batch
 * filler (fills whose process died are resumed here too), a webhook sender (the batches this
 * worker finalizes are announced even where no `presend serve` runs a sender) and the prober's
 * start-up health log.
 * The command (src/cli/commands/worker.ts) only parses flags and handles signals.
 */
import { randomUUID } from 'node:crypto';
import type { PresendConfig } from '../config.js';
import type { Logger } from '../logger.js';
import type { Backend } from '../store/backend.js';
import { openBackend } from '../store/open-backend.js';
import { BatchRunner, batchRunnerOptions } from '../service/batches/batch-runner.js';
import { ListBatchFiller, listBatchFillerOptions } from '../service/lists/list-batch-fill.js';
import { loadEngines } from '../service/engines/load-engines.js';
import { closeEngines } from '../service/engines/engines.js';
import { ProberHealthMonitor } from '../service/prober-health/monitor.js';
import { WebhookSender, webhookSenderOptions } from '../service/webhooks/webhook-sender.js';
import { LeaseKeeper } from '../service/leases/lease-keeper.js';

export interface RunningWorker {
  /** This worker's lease owner id (in its log lines and the queue's rows). */
  owner: string;
  backend: Backend;
  /** Stops taking work, hands back what it holds, closes the engines and the backend. */
  close(): Promise<void>;
}

export async function startWorker(config: PresendConfig, logger: Logger): Promise<RunningWorker> {
  const backend = await openBackend(config.databaseUrl, { config, longRunning: true, log: logger });
  // The engine's session limiter and facts cache come from the backend: shared with every other worker on PostgreSQL.
  const engines = loadEngines(config, backend.engineState);
  // The one keeper of this process's leases (its items, the fills it runs or takes over).
  const keeper = new LeaseKeeper({ leases: backend.leases, leaseMs: config.leaseMs, owner: `${config.workerId}#${randomUUID()}`, log: logger.child({ part: 'leases' }) });
  const worker = new BatchRunner(batchRunnerOptions(config, backend, engines, logger.child({ part: 'worker' }), keeper));
  worker.start();
  const filler = new ListBatchFiller(listBatchFillerOptions(config, backend, logger.child({ part: 'list-fill' }), undefined, keeper));
  filler.start();
  // Every process of the scale-out sends webhooks; the store's leases hand each delivery to one of them.
  const webhooks = new WebhookSender(webhookSenderOptions(config, backend.webhooks, logger.child({ part: 'webhooks' })));
  webhooks.start();
  keeper.start();
  // The prober's cheap health checks in the start-up log (then again when what is wrong changes).
  const proberHealth = engines.liveChecksOff === undefined ? new ProberHealthMonitor(config, logger.child({ part: 'prober-health' })) : null;
  proberHealth?.start();
  let closing: Promise<void> | null = null;
  const close = () => {
    closing ??= (async () => {
      proberHealth?.stop();
      await Promise.all([worker.stop(), filler.stop(), webhooks.stop()]);
      await keeper.stop();
      await closeEngines(engines);
      await backend.close();
    })();
    return closing;
  };
  return { owner: worker.owner, backend, close };
}
