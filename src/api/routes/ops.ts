/** Operational routes, outside the versioned interface and without authentication. */
import type { FastifyInstance } from 'fastify';
import type { Backend } from '../../store/backend.js';
import type { Metrics } from '../../service/metrics.js';
import { ApiError } from '../errors.js';
import { renderDocsPage } from '../docs-page.js';

export function opsRoutes(
  app: FastifyInstance,
  deps: { backend: Pick<Backend, 'ping'>; metrics: Metrics; isShuttingDown: () => boolean; warnings: readonly string[] },
): void {
  app.get('/healthz', async () => ({ status: 'ok' }));

  app.get('/readyz', async () => {
    if (deps.isShuttingDown()) throw new ApiError('service_unavailable', 'Shutting down.');
    try {
      await deps.backend.ping();
    } catch {
      throw new ApiError('service_unavailable', 'The store is not reachable.');
    }
    // Ready, but an operator has something to fix (a node that refuses live checks still serves sandbox keys and the dashboard).
    return deps.warnings.length > 0 ? { status: 'ready', warnings: deps.warnings } : { status: 'ready' };
  });

  app.get('/metrics', async (_request, reply) => reply.type(deps.metrics.contentType).send(await deps.metrics.render()));

  app.get('/openapi.json', async () => app.swagger());

  app.get('/docs', async (_request, reply) => reply.type('text/html; charset=utf-8').send(renderDocsPage(app.swagger() as Record<string, unknown>)));
}
