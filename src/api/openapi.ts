/** @fastify/swagger options: OpenAPI 3.1 from the route schemas, finished by openapi-document.ts. */
import type { SwaggerOptions } from '@fastify/swagger';
import { ResultsQuery } from './schemas.js';
import { finishDocument } from './openapi-document.js';

/** The operational routes: served without a key, outside the versioned interface. */
const UNDOCUMENTED = ['/openapi.json', '/docs', '/healthz', '/readyz', '/metrics'];

/** The path parameter as documented: a uuid. Not validated as one, so that a malformed id is a 404 like an unknown one (docs/design.md §4). */
const RequestIdDoc = { type: 'object', properties: { id: { type: 'string', format: 'uuid', description: 'The `request.id` from creation.' } }, required: ['id'] };

type OpenapiObject = SwaggerOptions extends { openapi?: infer O } ? O : never;

export function openapiOptions(): SwaggerOptions {
  return {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Presend email verification API',
        version: '1',
        description:
          'Single and batch verification of email addresses. Every check yields a pre-send envelope (`presend`, the ' +
          '`ClientDecisionEnvelopeV1` schema): a recommended action (`decision`), a verdict, a confidence, reasons, retry guidance and billing. ' +
          'Every error body is `{error: {code, message, requestId}}` (the `Error` schema; codes in `x-error-codes`); every response carries `X-Request-Id`.',
        license: { name: 'MIT', identifier: 'MIT' },
      },
      // Relative to the document (OpenAPI 3.1 §4.8.5): the server that serves /openapi.json, wherever it is deployed.
      servers: [{ url: '/', description: 'The Presend server serving this document' }],
      tags: [
        { name: 'Verification', description: 'One address, answered within a bounded wait.' },
        { name: 'Batches', description: 'Up to 10,000 addresses or a stored list, processed asynchronously and read back in pages.' },
      ],
      components: {
        securitySchemes: {
          ApiKey: { type: 'apiKey', in: 'header', name: 'X-Api-Key', description: 'Canonical: the API key (`ps_live.…` or `ps_test.…`).' },
          Bearer: { type: 'http', scheme: 'bearer', description: 'Compatibility mode: the same key as a Bearer token.' },
        },
      },
    } as OpenapiObject,
    hideUntagged: false,
    transform: ({ schema, url, route }) => {
      const s = { ...(schema as Record<string, unknown>) };
      // The results query and the id are documented as the spec states them, but not validated
      // by ajv: docs/design.md §4 clamps a bad limit and answers 404 for a malformed id instead of 400.
      if (url === '/v1/requests/:id/results' && route.method === 'GET') s.querystring = ResultsQuery;
      if (url.startsWith('/v1/requests/:id')) s.params = RequestIdDoc;
      if (UNDOCUMENTED.includes(url)) s.hide = true;
      return { schema: s as typeof schema, url };
    },
    transformObject: (documents) => ('openapiObject' in documents ? finishDocument(documents.openapiObject as Record<string, unknown>) : documents.swaggerObject) as never,
  };
}
