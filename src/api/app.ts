/**
 * The HTTP application: Fastify with JSON logs (keys redacted), one error shape for every
 * error status, `X-Request-Id` on every response, the four routes of the interface and the
 * operational routes (/healthz, /readyz, /metrics, /openapi.json, /docs).
 */
import { randomUUID } from 'node:crypto';
import type { Duplex } from 'node:stream';
import Fastify, { LogController } from 'fastify';
import type { FastifyBaseLogger, FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import swagger from '@fastify/swagger';
import type { Backend } from '../store/backend.js';
import { StoreFailure } from '../store/store-failure.js';
import type { Logger } from '../logger.js';
import { parseAddress } from '../core/syntax/address.js';
import { invalidAddressMessage } from '../core/syntax/problems.js';
import type { VerifyService } from '../service/checks/verify-service.js';
import type { BatchService } from '../service/batches/batch-service.js';
import type { ResultsService } from '../service/batches/results-service.js';
import type { Metrics } from '../service/operations/metrics.js';
import { ApiError } from './errors.js';
import { MAX_IDEMPOTENCY_KEY_LENGTH } from './schemas.js';
import { authenticate } from './auth.js';
import type { RateLimitDefaults } from './auth.js';
import { verifyRoute } from './routes/verify.js';
import { requestRoutes } from './routes/requests.js';
import { opsRoutes } from './routes/ops.js';
import { openapiOptions } from './openapi.js';
import { loggedUrl } from './logged-url.js';
import { capConnections, type ConnectionCaps } from './connection-caps.js';

export interface AppDeps {
  backend: Pick<Backend, 'accounts' | 'rateLimits' | 'ping' | 'probeWrite'>;
  verify: VerifyService;
  batches: BatchService;
  results: ResultsService;
  metrics: Metrics;
  rateLimits: RateLimitDefaults;
  /** The process's logger (src/logger.ts): Fastify logs through it. */
  logger: Logger;
  isShuttingDown: () => boolean;
  /** What an operator must fix though the node can serve (live checks off, the prober's health): listed by /readyz, read at each request. */
  readinessWarnings?: () => readonly string[];
  now?: () => Date;
  /** How long a client may take to send a whole request, headers and body (default 60 s). */
  requestTimeoutMs?: number;
  /** Proxies trusted for X-Forwarded-* (config.trustProxy). */
  trustProxy?: boolean | number | string[];
  /** How long /readyz waits for the store (default 2 s). */
  readyTimeoutMs?: number;
  /** Caps on open connections, overall and per client address (config.maxConnections…); none when absent. */
  connectionCaps?: ConnectionCaps;
}

/**
 * The largest body the spec allows: 10,000 addresses of 320 characters. Characters of an
 * internationalised address (RFC 6531) take up to 4 bytes in UTF-8, so 10,000 × (320 × 4 + 3)
 * ≈ 12.2 MiB; 16 MiB leaves room for whitespace. (The receive deadline bounds slow senders.)
 */
const BODY_LIMIT = 16 * 1024 * 1024;
const SAFE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export function sendError(request: FastifyRequest, reply: FastifyReply, err: ApiError): FastifyReply {
  // Overload and shutdown are temporary: say when to come back, like a 429 does.
  const retry = err.status === 503 && !err.headers['retry-after'] ? { 'retry-after': '1' } : {};
  return reply
    .code(err.status)
    .headers({ ...err.headers, ...retry })
    .header('x-request-id', request.id)
    .type('application/json; charset=utf-8')
    .send(JSON.stringify({ error: { code: err.code, message: err.message, requestId: request.id } }));
}

const STORE_FAILED_MESSAGE = 'The store cannot answer or cannot write now; retry later (a POST with the same Idempotency-Key).';

/** The interface's bodies are JSON (docs/interface-spec.md); any other type is refused with a message that says so. */
const CONTENT_TYPE_MESSAGE = 'Content-Type must be application/json';

/**
 * Maps anything thrown into the catalog: schema breaks and parser refusals are 400, never 500.
 * A body that is not JSON is 400 too, not 415: docs/interface-spec.md §7 lists every error status of
 * each route and 415 is not among them (docs/errors.md, "Why a non-JSON body is 400").
 */
function toApiError(err: FastifyError & { validationContext?: string }, request: FastifyRequest): ApiError {
  const body: unknown = request.body;
  if (err instanceof ApiError) return err;
  // The database failed (full, unreachable, read-only): temporary, and a POST retried with its Idempotency-Key is safe.
  if (err instanceof StoreFailure) return new ApiError('service_unavailable', STORE_FAILED_MESSAGE);
  if (err.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
    const given = request.headers['content-type'];
    return new ApiError('invalid_request', `${CONTENT_TYPE_MESSAGE}${given ? ` (got ${JSON.stringify(given.slice(0, 100))})` : ''}.`);
  }
  if (err.validation) {
    const first = err.validation[0];
    if (err.validationContext === 'headers') {
      if (first?.keyword !== 'maxLength') return new ApiError('missing_idempotency_key');
      return new ApiError('invalid_request', `The Idempotency-Key header is longer than ${MAX_IDEMPOTENCY_KEY_LENGTH} characters.`);
    }
    const path = first?.instancePath ?? '';
    if (err.validationContext === 'body' && path === '' && body === undefined) {
      return new ApiError('invalid_request', `The body is missing: send a JSON object (${CONTENT_TYPE_MESSAGE}).`);
    }
    const emailItem = /^\/emails\/(\d+)$/.exec(path);
    // The message names the problem (the value is read back from the body: ajv's format check only says no).
    const fields = (body ?? {}) as { email?: unknown; emails?: unknown[] };
    if (emailItem && (first?.keyword === 'format' || first?.keyword === 'maxLength' || first?.keyword === 'type')) {
      return new ApiError('invalid_email', invalidAddressMessage(`emails[${emailItem[1]}]`, fields.emails?.[Number(emailItem[1])]));
    }
    if (path === '/email' && (first?.keyword === 'format' || first?.keyword === 'maxLength')) {
      return new ApiError('invalid_email', invalidAddressMessage('email', fields.email));
    }
    return new ApiError('invalid_request', `${err.validationContext ?? 'request'}${path} ${first?.message ?? 'is invalid'}`.trim());
  }
  if (typeof err.statusCode === 'number' && err.statusCode >= 400 && err.statusCode < 500) {
    // Malformed JSON, an oversized or empty body: the spec's 400.
    return new ApiError('invalid_request', err.message);
  }
  return new ApiError('internal_error');
}

/**
 * Broken HTTP framing (bad Content-Length, headers over 16 KiB, garbage request lines) never
 * reaches a route: answer it in the spec's error shape too, with a fresh X-Request-Id, instead
 * of Fastify's own body (400/408/431 without one).
 */
function answerClientError(err: NodeJS.ErrnoException, socket: Duplex): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  // Never in the middle of an answer already being written on this connection (as Node does).
  const inFlight = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } | null })._httpMessage;
  if (socket.writable && !inFlight?.headersSent) {
    const requestId = randomUUID();
    const message =
      err.code === 'HPE_HEADER_OVERFLOW'
        ? 'The request headers are too large.'
        : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
          ? 'The request was not received in time.'
          : 'The request is not valid HTTP.';
    const body = JSON.stringify({ error: { code: 'invalid_request', message, requestId } });
    socket.write(
      `HTTP/1.1 400 Bad Request\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
        `X-Request-Id: ${requestId}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}

/** RFC 8259 §8.1: JSON text exchanged between systems MUST be UTF-8; bytes that are not are refused, not replaced by U+FFFD. */
const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const requestTimeout = deps.requestTimeoutMs ?? 60_000;
  const app = Fastify({
    // Keys never reach the logs (docs/design.md §3): the logger redacts them (src/logger.ts), and
    // the request log shows URLs redacted by route (logged-url.ts).
    loggerInstance: deps.logger as FastifyBaseLogger,
    // One log line per request, written by the onResponse hook below, instead of Fastify's two
    // (logging was ≈ 8 % of the server's time under load, BENCHMARKS.md §3). Through the log
    // controller: the top-level `disableRequestLogging` is deprecated (FSTDEP023, removed in Fastify 6).
    logController: new LogController({ disableRequestLogging: true }),
    // A hop count trusts that many proxies nearest to us (proxy-addr's hop index).
    trustProxy: typeof deps.trustProxy === 'number' ? ((hops: number) => (_address: string, hop: number) => hop < hops)(deps.trustProxy) : (deps.trustProxy ?? false),
    // Requests that arrive while closing reach our handlers, which answer 503 with the spec's error body.
    return503OnClosing: false,
    bodyLimit: BODY_LIMIT,
    // Fastify turns Node's request deadline off (0): a client trickling a body would then hold
    // its connection, and up to BODY_LIMIT of buffered body, for ever. The deadline covers
    // receiving the request only, not the wait of /v1/verify. Node enforces it only when the
    // headers deadline is not longer.
    requestTimeout,
    http: { headersTimeout: requestTimeout, connectionsCheckingInterval: Math.min(30_000, Math.max(50, Math.floor(requestTimeout / 4))) },
    clientErrorHandler: answerClientError,
    // A malformed percent-encoding or an over-long path parameter is no route of ours: 404, like any unknown path.
    frameworkErrors: (_err, request, reply) => sendError(request, reply, new ApiError('not_found')),
    genReqId: (req) => {
      // Leading and trailing whitespace is no part of a field value (RFC 9110 §5.5); Node's parser
      // does not strip it in every case (a fuzzed ' j' sometimes arrived as is), so it is cut here.
      const given = req.headers['x-request-id'];
      const id = typeof given === 'string' ? given.trim() : '';
      return SAFE_REQUEST_ID.test(id) ? id : randomUUID();
    },
    ajv: {
      customOptions: { removeAdditional: false, coerceTypes: false, useDefaults: true },
      // The interface's email format is the engine's syntax check (RFC 5321 + SMTPUTF8 + IDNA), not ajv's ASCII-only regex.
      onCreate: (ajv) => {
        ajv.addFormat('email', { type: 'string', validate: (v: string) => parseAddress(v).ok });
      },
    },
  });
  if (deps.connectionCaps) capConnections(app.server, deps.connectionCaps);
  app.decorateRequest('apiKey', null);
  const parseJson = app.getDefaultJsonParser('error', 'error');
  // JSON only: Fastify's built-in text/plain parser would hand a string to the schema ("body must be object").
  app.removeContentTypeParser(['application/json', 'text/plain']);
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    let text: string;
    try {
      text = strictUtf8.decode(body as Buffer);
    } catch {
      done(Object.assign(new Error('The body is not valid UTF-8.'), { statusCode: 400 }), undefined);
      return;
    }
    parseJson(request, text, done);
  });
  const started = new WeakMap<FastifyRequest, bigint>();

  app.addHook('onRequest', async (request, reply) => {
    started.set(request, process.hrtime.bigint());
    void reply.header('x-request-id', request.id);
  });
  app.addHook('onResponse', async (request, reply) => {
    const t0 = started.get(request);
    if (t0 === undefined) return;
    const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
    const route = request.routeOptions.url ?? 'unmatched';
    deps.metrics.observeRequest(request.method, route, reply.statusCode, seconds);
    request.log.info(
      { method: request.method, route, url: loggedUrl(request), statusCode: reply.statusCode, responseTimeMs: Math.round(seconds * 1e4) / 10, remoteAddress: request.ip },
      'request completed',
    );
  });

  app.setErrorHandler((err: FastifyError, request, reply) => {
    // An oversized body is refused before it is read. Fastify then closes the connection, and
    // the client's unread bytes make the kernel send a reset that can destroy this very answer
    // before the client reads it. Kept open, Node reads and discards the rest of the body
    // instead, for a while: a body still arriving 10 s later is cut off.
    if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
      reply.removeHeader('connection');
      setTimeout(() => {
        if (!request.raw.complete) request.raw.destroy();
      }, 10_000).unref();
    }
    const apiError = toApiError(err, request);
    if (apiError.status >= 500) request.log.error({ err }, 'request failed');
    return sendError(request, reply, apiError);
  });
  app.setNotFoundHandler((request, reply) => sendError(request, reply, new ApiError('not_found')));

  await app.register(swagger, openapiOptions());
  opsRoutes(app, {
    backend: deps.backend,
    metrics: deps.metrics,
    isShuttingDown: deps.isShuttingDown,
    readyTimeoutMs: deps.readyTimeoutMs ?? 2000,
    now: deps.now ?? (() => new Date()),
    warnings: deps.readinessWarnings ?? (() => []),
  });

  await app.register(async (v1) => {
    v1.addHook('onRequest', authenticate(deps.backend, deps.rateLimits, deps.now));
    verifyRoute(v1, deps.verify);
    requestRoutes(v1, deps.batches, deps.results);
  });
  return app;
}

