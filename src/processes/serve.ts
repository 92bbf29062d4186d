/**
 * Wiring of `presend serve`: backend → services → HTTP app, plus the embedded batch runner, the
 * periodic retention purge and graceful shutdown (stop accepting, let in-flight checks finish
 * or hand their items back, close the backend). `startServeProcess` is what the command runs
 * (it opens the backend and the engines from the config); `startServer` is the part tests
 * drive with their own backend and engines. The worker's wiring is beside it (worker.ts).
 */
import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { PresendConfig } from '../config.js';
import { createLogger } from '../logger.js';
import type { Logger } from '../logger.js';
import type { Backend } from '../store/backend.js';
import { openBackend } from '../store/open-backend.js';
import { BatchRunner, batchRunnerOptions } from '../service/batches/batch-runner.js';
import { ListBatchFiller, listBatchFillerOptions } from '../service/lists/list-batch-fill.js';
import type { BatchRunnerOptions } from '../service/batches/batch-runner.js';
import { VerifyService } from '../service/checks/verify-service.js';
import { BatchService } from '../service/batches/batch-service.js';
import { ResultsService } from '../service/batches/results-service.js';
import { Metrics } from '../service/operations/metrics.js';
import { closeEngines } from '../service/engines/engines.js';
import { loadEngines } from '../service/engines/load-engines.js';
import { ProberHealthMonitor } from '../service/prober-health/monitor.js';
import type { Engines } from '../service/engines/engines.js';
import { buildApp } from '../api/app.js';
import { LeaseKeeper, systemClock } from '../service/leases/lease-keeper.js';
import { dashboardPlugin } from '../dashboard/plugin.js';
import { OwnerAuth } from '../service/owners/owner-sign-in.js';
import { KeyUsageRecorder } from '../service/keys/key-usage.js';
import { ListUploads } from '../service/lists/list-uploads.js';
import { WebhookSender, webhookSenderOptions } from '../service/webhooks/webhook-sender.js';
import { feedbackRoutes } from '../api/feedback-routes.js';
import { visitSubscribeUrl } from '../service/feedback/inbound-feedback.js';
import { fetchSnsCertificate } from '../feedback/providers/sns.js';
import type { CertificateFetch } from '../feedback/providers/sns.js';

export interface ServerOptions {
  config: PresendConfig;
  engines: Engines;
  /** An already open backend (tests; the server then closes it too); otherwise opened from config.databaseUrl and migrated. */
  backend?: Backend;
  /** Run the embedded batch runner (default true); an object tunes it beyond the config (tests). */
  worker?: boolean | Partial<Omit<BatchRunnerOptions, 'work' | 'batches' | 'engines'>>;
  /** The process's logger; otherwise one at `logLevel` (default config.logLevel; false: silent) writing to `logStream` (default stdout). */
  logger?: Logger;
  logLevel?: string | false;
  logStream?: NodeJS.WritableStream;
  /** Single checks running at once before /v1/verify answers 503 (default config.maxRunningChecks). */
  maxInFlightVerifies?: number;
  purgeIntervalMs?: number;
  /** How long shutdown waits for running single checks before aborting them. */
  shutdownGraceMs?: number;
  /** How long a client may take to send a whole request (default 60 s). */
  requestTimeoutMs?: number;
  now?: () => Date;
  /** The prober's cheap health checks (src/service/prober-health/monitor.ts): what is not ✓ is listed by /readyz. */
  proberHealth?: { warnings(): readonly string[] };
  /** SNS signing certificates for `/feedback/ses/…` (default: fetched over https from AWS; tests serve a local one). */
  fetchSnsCertificate?: CertificateFetch;
  /** Visits an SNS SubscribeURL (default: a GET; tests record it). */
  confirmSnsSubscription?: (url: string) => Promise<void>;
}

export interface RunningServer {
  app: FastifyInstance;
  url: string;
  backend: Backend;
  /** Why live checks are refused on this server (no probe identity), when they are (src/service/engines/engines.ts). */
  liveChecksOff: string | undefined;
  worker: BatchRunner | null;
  webhooks: WebhookSender;
  metrics: Metrics;
  /** First step of shutdown: /readyz and new work answer 503 while the listener stays open (load balancers notice). */
  stopAccepting(): void;
  close(): Promise<void>;
}

export async function startServer(options: ServerOptions): Promise<RunningServer> {
  const { config, engines } = options;
  const now = options.now ?? (() => new Date());
  const logger = options.logger ?? createLogger(options.logLevel ?? config.logLevel, options.logStream);
  const backend = options.backend ?? (await openBackend(config.databaseUrl, { config, longRunning: true, log: logger }));
  const metrics = new Metrics({
    queueDepth: () => backend.work.depth(),
    ...(engines.smtpSessions ? { smtpSessions: engines.smtpSessions } : {}),
    ...(engines.live.egressStats ? { egress: () => engines.live.egressStats?.() ?? null } : {}),
    ...(engines.live.politenessStats ? { politeness: () => engines.live.politenessStats?.() ?? null } : {}),
  });
  let shuttingDown = false;
  // The one keeper of this process's leases: checks, the embedded worker's items, list fills and
  // imports; it also takes over the work other processes left when they died.
  const keeper = new LeaseKeeper({
    leases: backend.leases,
    leaseMs: config.leaseMs,
    owner: `${config.workerId}#${randomUUID()}`,
    clock: systemClock(now),
    log: logger.child({ part: 'leases' }),
  });
  // A feedback import whose process died (`presend feedback import` killed) ends failed.
  keeper.endLapsed('feedbackImport');

  const verify = new VerifyService({
    verifications: backend.verifications,
    leases: backend.leases,
    keeper,
    policies: backend.policies,
    feedback: backend.feedback,
    evidence: backend.evidence,
    engines,
    metrics,
    limits: {
      total: options.maxInFlightVerifies ?? config.maxRunningChecks,
      perAccount: config.maxRunningChecksPerAccount,
      perKey: config.maxRunningChecksPerKey,
    },
    deadlineMs: config.checkDeadlineMs,
    leaseMs: config.leaseMs,
    now,
    log: logger.child({ part: 'verify' }),
  });
  const filler = new ListBatchFiller(listBatchFillerOptions(config, backend, logger.child({ part: 'list-fill' }), now, keeper));
  const batches = new BatchService({
    batches: backend.batches,
    lists: backend.lists,
    work: backend.work,
    filler,
    listMaxEntries: config.listMaxEntries,
    maxOutstanding: config.accountMaxOutstanding,
    retentionDays: config.retentionDays,
    now,
    isDraining: () => shuttingDown,
    ...(engines.liveChecksOff !== undefined ? { liveChecksOff: engines.liveChecksOff } : {}),
  });
  const results = new ResultsService(backend.batches, now);
  // Every key the API authenticates is a use of it (the dashboard shows the last one).
  const keyUsage = new KeyUsageRecorder(backend.keyManagement, now, logger.child({ part: 'key-usage' }));
  const app = await buildApp({
    backend: { ...backend, accounts: keyUsage.wrap(backend.accounts) },
    verify,
    batches,
    results,
    metrics,
    rateLimits: {
      perSecond: config.rateLimitPerSecond,
      burst: config.rateLimitBurst,
      reads: { perSecond: config.resultsRateLimitPerSecond, burst: config.resultsRateLimitBurst },
    },
    logger,
    isShuttingDown: () => shuttingDown,
    readinessWarnings: () => [...(engines.liveChecksOff !== undefined ? [engines.liveChecksOff] : []), ...(options.proberHealth?.warnings() ?? [])],
    now,
    ...(options.requestTimeoutMs !== undefined ? { requestTimeoutMs: options.requestTimeoutMs } : {}),
    trustProxy: config.trustProxy,
    readyTimeoutMs: config.readyTimeoutMs,
    connectionCaps: { total: config.maxConnections, perClient: config.maxConnectionsPerClient },
  });
  // The owners' dashboard (docs/design.md §7): pages over the same services; no route under /v1.
  const uploads = new ListUploads({ lists: backend.lists, listFiles: backend.listFiles, leases: backend.leases, keeper, now, log: logger.child({ part: 'dashboard' }), leaseMs: config.leaseMs, maxEntries: config.listMaxEntries, tableLimits: config.tableLimits });
  await app.register(dashboardPlugin, {
    prefix: '/dashboard',
    backend,
    auth: new OwnerAuth(backend, { now }),
    verify,
    batches,
    results,
    uploads,
    now,
    maxUploadBytes: config.dashboardMaxUploadBytes,
    allowPrivateWebhooks: config.allowPrivateWebhooks,
    tableLimits: config.tableLimits,
  });

  // Providers' feedback events (docs/feedback.md): not under /v1, authenticated by token and signature.
  await app.register(feedbackRoutes, {
    feedback: backend.feedback,
    fetchCertificate: options.fetchSnsCertificate ?? fetchSnsCertificate,
    confirmSubscription: options.confirmSnsSubscription ?? visitSubscribeUrl,
    signatureMaxAgeS: config.feedbackSignatureMaxAgeS,
    eventsRetentionDays: config.feedbackEventsRetentionDays,
    now,
    log: logger.child({ part: 'feedback' }),
  });

  let worker: BatchRunner | null = null;
  if (options.worker !== false) {
    const tuning = typeof options.worker === 'object' ? options.worker : {};
    worker = new BatchRunner({ ...batchRunnerOptions(config, backend, engines, logger.child({ part: 'worker' }), keeper), metrics, now, ...tuning });
  }

  // Every serving node sends webhooks; the store's leases hand each delivery to one of them.
  const webhooks = new WebhookSender({ ...webhookSenderOptions(config, backend.webhooks, logger.child({ part: 'webhooks' })), metrics, now });

  const housekeeping = async () => {
    try {
      const t = now();
      // Work whose process died is taken over or ended by the lease keeper's rounds.
      const purged = await backend.retention.purgeExpired(t, config.retentionDays, { chunk: config.purgeChunk, feedbackEventsRetentionDays: config.feedbackEventsRetentionDays });
      if (purged.requests > 0 || purged.failedLists > 0 || purged.feedbackEvents > 0) app.log.info(purged, 'retention purge');
      await backend.webhooks.purgeFinished(new Date(t.getTime() - config.retentionDays * 86_400_000));
    } catch (err) {
      app.log.error({ err }, 'housekeeping failed');
    }
  };
  await housekeeping();
  const purgeTimer = setInterval(() => void housekeeping(), options.purgeIntervalMs ?? 10 * 60 * 1000);
  purgeTimer.unref();

  await app.listen({ host: config.host, port: config.port });
  worker?.start();
  filler.start();
  verify.start();
  uploads.start();
  keeper.start();
  webhooks.start();
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;

  const stopAccepting = () => {
    shuttingDown = true;
    verify.stopAccepting();
  };
  let closing: Promise<void> | null = null;
  const close = () => {
    closing ??= (async () => {
      stopAccepting();
      clearInterval(purgeTimer);
      await Promise.allSettled([verify.drain(options.shutdownGraceMs ?? 10_000), app.close(), worker?.stop(), filler.stop(), webhooks.stop()]);
      // After the work above handed back what it held: nothing is renewed any more.
      await keeper.stop();
      await keyUsage.close();
      await closeEngines(engines);
      await backend.close();
    })();
    return closing;
  };
  return { app, url: `http://${host}:${port}`, backend, liveChecksOff: engines.liveChecksOff, worker, webhooks, metrics, stopAccepting, close };
}


/**
 * `presend serve`: opens the backend and the engines from the config (the engine's session
 * limiter and facts cache come from the backend, shared with every worker on PostgreSQL), starts
 * the prober's cheap health checks when live checks are on (logged now, listed by /readyz), then
 * the server. Closing the server stops them all.
 */
export async function startServeProcess(config: PresendConfig, logger: Logger, options: { worker: boolean }): Promise<RunningServer> {
  const backend = await openBackend(config.databaseUrl, { config, longRunning: true, log: logger });
  const engines = loadEngines(config, backend.engineState);
  const proberHealth = engines.liveChecksOff === undefined ? new ProberHealthMonitor(config, logger.child({ part: 'prober-health' })) : null;
  proberHealth?.start();
  try {
    const server = await startServer({ config, backend, logger, engines, worker: options.worker, ...(proberHealth ? { proberHealth } : {}) });
    return {
      ...server,
      close: () => {
        proberHealth?.stop();
        return server.close();
      },
    };
  } catch (err) {
    proberHealth?.stop();
    await closeEngines(engines);
    await backend.close().catch(() => undefined);
    throw err;
  }
}
