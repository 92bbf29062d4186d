/** POST /v1/requests, GET /v1/requests/{id}, GET /v1/requests/{id}/results (docs/interface-spec.md §4). */
import type { FastifyInstance } from 'fastify';
import type { BatchService } from '../../service/batches/batch-service.js';
import type { ResultsService } from '../../service/batches/results-service.js';
import { BatchInput, BatchRequest, IdempotencyHeaders, RequestIdParams, ResultsPage } from '../schemas.js';
import { ApiError, refusalError } from '../errors.js';
import { errorResponses, SECURITY } from '../responses.js';
import { renderBatch, renderResultItem } from '../render.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function requestRoutes(app: FastifyInstance, batches: BatchService, results: ResultsService): void {
  app.post(
    '/v1/requests',
    {
      schema: {
        operationId: 'createBatch',
        tags: ['Batches'],
        summary: 'Create a batch',
        description:
          'Exactly one of `emails` (1–10,000 addresses) or `listId` (a ready list of the account). Holds one credit per unique address. ' +
          '202: created. 200: idempotent replay (`replayed: true`, same `request.id`).',
        security: SECURITY,
        headers: IdempotencyHeaders,
        body: BatchInput,
        response: {
          200: BatchRequest,
          202: BatchRequest,
          ...errorResponses('POST /v1/requests'),
        },
      },
    },
    async (request, reply) => {
      const key = request.apiKey;
      if (!key) throw new ApiError('unauthorized');
      const outcome = await batches.create(key, request.body as { emails?: string[]; listId?: string }, request.headers['idempotency-key'] as string);
      if (outcome.kind === 'refused') throw refusalError('POST /v1/requests', outcome);
      if (outcome.kind === 'replay') return reply.code(200).send(renderBatch(outcome.request, request.id, true));
      return reply.code(202).send(renderBatch(outcome.request, request.id));
    },
  );

  app.get(
    '/v1/requests/:id',
    {
      schema: {
        operationId: 'getBatch',
        tags: ['Batches'],
        summary: 'Status of a batch',
        description: 'Current state, progress flags and counters. Poll this for progress.',
        security: SECURITY,
        params: RequestIdParams,
        response: { 200: BatchRequest, ...errorResponses('GET /v1/requests/{id}') },
      },
    },
    async (request) => {
      const key = request.apiKey;
      if (!key) throw new ApiError('unauthorized');
      const { id } = request.params as { id: string };
      const view = UUID.test(id) ? await results.status(key.accountId, id.toLowerCase()) : null;
      if (!view) throw new ApiError('request_not_found');
      return renderBatch(view, request.id);
    },
  );

  app.get(
    '/v1/requests/:id/results',
    {
      schema: {
        operationId: 'getBatchResults',
        tags: ['Batches'],
        summary: 'Results of a batch, one page',
        description:
          'Final results in the order they became final. Export with `cursor` until `nextCursor` is null on a finalized request. ' +
          'While the batch runs, an empty tail page has `nextCursor: null`: ask again later with the same cursor. `cursor` wins over `offset`; ' +
          '`limit` is clamped into 1–200; a malformed `offset` counts as 0.',
        security: SECURITY,
        params: RequestIdParams,
        response: { 200: ResultsPage, ...errorResponses('GET /v1/requests/{id}/results') },
      },
    },
    async (request) => {
      const key = request.apiKey;
      if (!key) throw new ApiError('unauthorized');
      const { id } = request.params as { id: string };
      if (!UUID.test(id)) throw new ApiError('request_not_found');
      const page = await results.page(key.accountId, id.toLowerCase(), request.query as Record<string, unknown>);
      if (page.kind === 'request_not_found') throw new ApiError('request_not_found');
      if (page.kind === 'cursor_not_found') throw new ApiError('cursor_not_found');
      return {
        jobId: page.request.id,
        results: page.rows.map(renderResultItem),
        limit: page.limit,
        offset: page.offset,
        nextCursor: page.nextCursor,
        ...page.flags,
        requestId: request.id,
      };
    },
  );
}
