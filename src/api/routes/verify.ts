/** POST /v1/verify — single verification with a bounded synchronous wait (docs/interface-spec.md §4). */
import type { FastifyInstance } from 'fastify';
import type { VerifyService } from '../../service/checks/verify-service.js';
import { IdempotencyHeaders, VerifyInput, VerifyResult } from '../schemas.js';
import { ApiError, refusalError } from '../errors.js';
import { errorResponses, SECURITY } from '../responses.js';
import { renderCompletedVerify, renderPendingVerify } from '../render.js';

export function verifyRoute(app: FastifyInstance, verify: VerifyService): void {
  app.post(
    '/v1/verify',
    {
      schema: {
        operationId: 'verifyEmail',
        tags: ['Verification'],
        summary: 'Verify one address',
        description:
          'Waits up to `timeoutMs` (default 15000) for the check. 200: completed envelope with `engine`. 202: the wait ended first; ' +
          'the check continues and is billed only if it ends in a verdict. A replay with the same Idempotency-Key and body returns the same verification as it stands now.',
        security: SECURITY,
        headers: IdempotencyHeaders,
        body: VerifyInput,
        response: {
          200: VerifyResult,
          202: VerifyResult,
          ...errorResponses('POST /v1/verify'),
        },
      },
    },
    async (request, reply) => {
      const key = request.apiKey;
      if (!key) throw new ApiError('unauthorized');
      const body = request.body as { email: string; timeoutMs?: number };
      const outcome = await verify.verify(key, body, request.headers['idempotency-key'] as string, request.id);
      if (outcome.kind === 'refused') throw refusalError('POST /v1/verify', outcome);
      if (outcome.kind === 'completed') return reply.code(200).send(renderCompletedVerify(outcome.record, request.id));
      return reply.code(202).send(renderPendingVerify(outcome.record, request.id));
    },
  );
}
