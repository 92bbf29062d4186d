/** @fastify/swagger options: OpenAPI 3.1 from the route schemas, plus the error catalog. */
import type { SwaggerOptions } from '@fastify/swagger';
import { ERROR_CATALOG } from './errors.js';
import { ResultsQuery } from './schemas.js';

export function openapiOptions(): SwaggerOptions {
  return {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Presend email verification API',
        version: '1',
        description:
          'Single and batch verification of email addresses with a pre-send envelope (`presend`). ' +
          'Every error body is `{error: {code, message, requestId}}`; every response carries `X-Request-Id`.',
      },
      components: {
        securitySchemes: {
          ApiKey: { type: 'apiKey', in: 'header', name: 'X-Api-Key' },
          Bearer: { type: 'http', scheme: 'bearer', description: 'Compatibility mode: the same key as a Bearer token.' },
        },
      },
      'x-error-codes': Object.fromEntries(Object.entries(ERROR_CATALOG).map(([code, e]) => [code, { status: e.status, message: e.message }])),
    } as SwaggerOptions extends { openapi?: infer O } ? O : never,
    hideUntagged: false,
    // The results query is documented but not validated by ajv: DESIGN.md §4 clamps instead of refusing.
    transform: ({ schema, url, route }) => {
      const s = { ...(schema as Record<string, unknown>) };
      if (url === '/v1/requests/:id/results' && route.method === 'GET') s.querystring = ResultsQuery;
      const hidden = ['/openapi.json', '/docs', '/healthz', '/readyz', '/metrics'].includes(url);
      if (hidden) s.hide = true;
      return { schema: s as typeof schema, url };
    },
  };
}
