/** Operational routes, outside the versioned interface and without authentication. */
import type { FastifyInstance } from 'fastify';
import type { Backend } from '../../store/backend.js';
import type { Metrics } from '../../service/operations/metrics.js';
import { ApiError } from '../errors.js';
import { renderDocsPage } from '../docs-page.js';

/** Rejects when `work` has not settled within `ms`: a store that hangs is as unready as one that fails. */
async function within<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}

export interface OpsDeps {
  backend: Pick<Backend, 'ping' | 'probeWrite'>;
  metrics: Metrics;
  isShuttingDown: () => boolean;
  /** How long /readyz waits for the store's read and its write probe (config.readyTimeoutMs). */
  readyTimeoutMs: number;
  now: () => Date;
  /** What an operator must fix though the node can serve (live checks off, the prober's health): listed by /readyz. */
  warnings: () => readonly string[];
}

export function opsRoutes(app: FastifyInstance, deps: OpsDeps): void {
  app.get('/healthz', async () => ({ status: 'ok' }));

  app.get('/readyz', async () => {
    if (deps.isShuttingDown()) throw new ApiError('service_unavailable', 'Shutting down.');
    try {
      await within(deps.backend.ping(), deps.readyTimeoutMs);
    } catch {
      throw new ApiError('service_unavailable', 'The store is not reachable.');
    }
    // Reads alone are not enough: with a full disk or a read-only database every check would
    // fail after its credit was held. One small write to a row of its own says the store takes writes.
    try {
      await within(deps.backend.probeWrite(deps.now()), deps.readyTimeoutMs);
    } catch (err) {
      app.log.warn({ err }, 'readiness: the store cannot write');
      throw new ApiError('service_unavailable', 'The store cannot write.');
    }
    // Ready, but an operator has something to fix (a node that refuses live checks, or whose prober
    // is unhealthy, still serves sandbox keys, the dashboard and results: src/service/prober-health/monitor.ts).
    const warnings = deps.warnings();
    return warnings.length > 0 ? { status: 'ready', warnings } : { status: 'ready' };
  });

  app.get('/metrics', async (_request, reply) => reply.type(deps.metrics.contentType).send(await deps.metrics.render()));

  app.get('/openapi.json', async () => app.swagger());

  app.get('/docs', async (_request, reply) => reply.type('text/html; charset=utf-8').send(renderDocsPage(app.swagger() as Record<string, unknown>)));
}
