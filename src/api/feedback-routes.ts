/**
 * `POST /feedback/{source}/{token}` (docs/feedback.md): where Amazon SES (through SNS), SendGrid,
 * Postmark and Mailgun post an account's bounce, delivery and complaint events. Not under /v1 and
 * not an API-key route: the token in the path names the account and the source, and the provider's
 * signature is checked by the service (src/service/feedback/inbound-feedback.ts). The body is kept
 * as bytes — a signature is over the exact bytes sent — whatever the Content-Type (SNS sends JSON
 * as text/plain). Hidden from the OpenAPI document, which describes the four routes of the spec.
 */
import type { FastifyInstance } from 'fastify';
import { sendError } from './app.js';
import { ApiError } from './errors.js';
import { receiveFeedback } from '../service/feedback/inbound-feedback.js';
import type { InboundFeedbackOptions } from '../service/feedback/inbound-feedback.js';

/** SendGrid posts batches of up to a few thousand events; more than this is not a provider's delivery. */
export const FEEDBACK_BODY_LIMIT = 4 * 1024 * 1024;

export async function feedbackRoutes(app: FastifyInstance, options: InboundFeedbackOptions): Promise<void> {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: FEEDBACK_BODY_LIMIT }, (_request, body, done) => done(null, body));
  app.post<{ Params: { source: string; token: string } }>(
    '/feedback/:source/:token',
    { schema: { hide: true }, bodyLimit: FEEDBACK_BODY_LIMIT },
    async (request, reply) => {
      const headers: Record<string, string | undefined> = {};
      for (const [name, value] of Object.entries(request.headers)) headers[name] = Array.isArray(value) ? value[0] : value;
      const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
      const outcome = await receiveFeedback(options, { source: request.params.source, token: request.params.token, headers, body });
      switch (outcome.kind) {
        case 'unknown':
          return sendError(request, reply, new ApiError('not_found'));
        case 'refused':
          return sendError(request, reply, new ApiError(outcome.status === 401 ? 'unauthorized' : 'invalid_request', outcome.message));
        case 'accepted':
          return reply.code(200).send({ recorded: outcome.recorded, duplicates: outcome.duplicates, ignored: outcome.ignored, ...(outcome.confirmed ? { confirmed: true } : {}) });
      }
    },
  );
}
