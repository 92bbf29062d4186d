/**
 * Finishes the OpenAPI document @fastify/swagger builds from the route schemas: every titled
 * schema becomes a named component (`ClientDecisionEnvelopeV1`, `BatchRequest`, …) referenced
 * where it is used; every response gets its description, headers and examples; error statuses
 * list the catalog codes they carry. Runs once, when the document is first asked for.
 */
import { ERROR_CATALOG, HTTP_STATUS, ROUTE_NAMES } from './errors.js';
import type { RouteName } from './errors.js';
import { codesFor, errorDescription } from './responses.js';
import { errorExample, REQUEST_EXAMPLES, RESPONSE_EXAMPLES } from './examples.js';
import type { Example } from './examples.js';

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** What each success status of each route means (docs/interface-spec.md §3–§4). */
const SUCCESS_DESCRIPTIONS: Record<RouteName, Record<number, string>> = {
  'POST /v1/verify': {
    200: 'Completed: the pre-send envelope (`presend`) with `engine` metadata.',
    202: 'The bounded wait ended before the check did: a pending envelope (no decision, nothing billed) and `engineJobId`, no `engine`. Not deliverable; record `engineJobId` and `requestId`, do not resubmit automatically.',
  },
  'POST /v1/requests': {
    202: 'A new batch request was created; one credit per unique address is held.',
    200: 'Replay of an identical body with the same `Idempotency-Key`: `replayed` is true and `request.id` is the first submission’s.',
  },
  'GET /v1/requests/{id}': { 200: 'The request’s current state, progress flags and counters.' },
  'GET /v1/requests/{id}/results': { 200: 'One page of final results, in the order they became final.' },
};

const ref = (kind: 'schemas' | 'headers', name: string) => ({ $ref: `#/components/${kind}/${name}` });

/** Response headers, declared once as components. */
const HEADERS: Record<string, Json> = {
  'X-Request-Id': { description: 'Correlation identifier of this request (also `requestId` in the body).', schema: { type: 'string' } },
  'Retry-After': { description: 'Whole seconds to wait before retrying (at least 1).', schema: { type: 'integer', minimum: 1 } },
  'RateLimit-Limit': { description: 'Burst size of the key’s token bucket.', schema: { type: 'integer', minimum: 0 } },
  'RateLimit-Remaining': { description: 'Requests left in the bucket now.', schema: { type: 'integer', minimum: 0 } },
  'RateLimit-Reset': { description: 'Seconds until the bucket is full again.', schema: { type: 'integer', minimum: 0 } },
};

function headersFor(status: number): Json {
  const names = ['X-Request-Id'];
  if (status === 429 || status === 503) names.push('Retry-After');
  if ((status >= 200 && status < 300) || status === 429) names.push('RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset');
  return Object.fromEntries(names.map((n) => [n, ref('headers', n)]));
}

/**
 * Replaces every object schema that has a title by a `$ref` to `components.schemas[title]`,
 * innermost first, so the envelope is one component that VerifyResult and ResultItem point at.
 */
function hoistTitled(node: unknown, schemas: Json): unknown {
  if (Array.isArray(node)) return node.map((n) => hoistTitled(n, schemas));
  if (!isObject(node)) return node;
  const out: Json = {};
  for (const [key, value] of Object.entries(node)) out[key] = key === 'examples' || key === 'example' ? value : hoistTitled(value, schemas);
  if (typeof out.title !== 'string' || out.type !== 'object') return out;
  const existing = schemas[out.title];
  if (existing !== undefined && JSON.stringify(existing) !== JSON.stringify(out)) throw new Error(`two different schemas are titled ${out.title}`);
  schemas[out.title] = out;
  return ref('schemas', out.title);
}

function jsonContent(schema: unknown, examples: Record<string, Example> | undefined): Json {
  return { 'application/json': { schema, ...(examples ? { examples } : {}) } };
}

function finishOperation(route: RouteName, op: Json): void {
  const responses = (op.responses ?? {}) as Record<string, Json>;
  for (const [statusText, response] of Object.entries(responses)) {
    const status = Number(statusText);
    const content = response.content as Record<string, Json> | undefined;
    const schema = content?.['application/json']?.schema;
    if (status < 400) {
      response.description = SUCCESS_DESCRIPTIONS[route][status] ?? response.description;
      response.content = jsonContent(schema, RESPONSE_EXAMPLES[route][status]);
    } else {
      response.description = errorDescription(route, status);
      const codes = codesFor(route, status);
      response.content = jsonContent(schema, Object.fromEntries(codes.map((c) => [c, errorExample(c, ERROR_CATALOG[c].message)])));
      response['x-error-codes'] = codes;
    }
    response.headers = headersFor(status);
  }
  const body = op.requestBody as Json | undefined;
  const bodyContent = body?.content as Record<string, Json> | undefined;
  if (body && bodyContent) body.content = jsonContent(bodyContent['application/json']?.schema, REQUEST_EXAMPLES[route]);
  for (const p of (op.parameters ?? []) as Json[]) {
    // Fastify keys header schemas in lower case; HTTP names are case-insensitive, the spec writes this one so.
    if (p.in === 'header' && p.name === 'idempotency-key') Object.assign(p, { name: 'Idempotency-Key', example: '7c4a0c8e-2f1d-4c55-9a57-0c1f4a8e6b21' });
    if (p.in === 'path' && p.name === 'id') Object.assign(p, { example: '0193a4c2-5b7e-7d21-9f3a-6c1e2d4b8a90' });
  }
}

export function finishDocument<T extends Json>(doc: T): T {
  const components = (doc.components ?? {}) as Json;
  const schemas = (components.schemas ?? {}) as Json;
  const paths = hoistTitled(doc.paths ?? {}, schemas) as Record<string, Record<string, Json>>;
  for (const [path, ops] of Object.entries(paths)) {
    for (const [method, op] of Object.entries(ops)) {
      const route = `${method.toUpperCase()} ${path}` as RouteName;
      if (!ROUTE_NAMES.includes(route)) throw new Error(`${route} is not a route of the interface`);
      finishOperation(route, op);
    }
  }
  components.schemas = schemas;
  components.headers = HEADERS;
  return {
    ...doc,
    paths,
    components,
    'x-error-codes': Object.fromEntries(Object.entries(ERROR_CATALOG).map(([code, e]) => [code, { status: HTTP_STATUS[code as keyof typeof HTTP_STATUS], message: e.message, when: e.when }])),
  };
}
