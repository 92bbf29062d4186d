/**
 * Authentication and rate limiting for the /v1 routes (docs/interface-spec.md §5, docs/design.md §3–§4):
 * `X-Api-Key` (canonical) or `Authorization: Bearer` (compatibility) with the same key; 401 for
 * a missing, malformed, unknown or revoked key; then one token from the key's bucket. Each key
 * has two: one for the work (verify, create a batch) and a larger one for reads (batch status and
 * results pages, GET), so an export of a large batch neither waits behind nor slows checks.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AuthenticatedKey } from '../store/api-keys.js';
import type { Backend } from '../store/backend.js';
import { hashApiKey, keyShape } from '../service/keys/key-format.js';
import { ApiError } from './errors.js';

declare module 'fastify' {
  interface FastifyRequest {
    apiKey: AuthenticatedKey | null;
  }
}

export interface RateLimitDefaults {
  perSecond: number;
  burst: number;
  /** The reads' bucket (GET routes); a key's own limits apply to it when they are higher. */
  reads: { perSecond: number; burst: number };
}

/** The bucket a request draws from: the key's own, or its reads' bucket for a GET. */
function bucketOf(request: FastifyRequest, found: AuthenticatedKey, limits: RateLimitDefaults): { id: string; perSecond: number; burst: number } {
  const perSecond = found.rateLimitPerSecond ?? limits.perSecond;
  const burst = found.rateLimitBurst ?? limits.burst;
  if (request.method !== 'GET' && request.method !== 'HEAD') return { id: found.keyId, perSecond, burst };
  return { id: `${found.keyId}:reads`, perSecond: Math.max(perSecond, limits.reads.perSecond), burst: Math.max(burst, limits.reads.burst) };
}

function presentedKey(request: FastifyRequest): string | null {
  const header = request.headers['x-api-key'];
  if (typeof header === 'string' && header !== '') return header.trim();
  const auth = request.headers.authorization;
  if (typeof auth === 'string') {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(auth);
    if (match?.[1]) return match[1];
  }
  return null;
}

/** RFC 9110 §11.6.2: Authorization holds one credential. Node keeps only the first of several
 * fields, while a proxy in front may read the last: more than one is refused, not guessed. */
function authorizationFields(request: FastifyRequest): number {
  const raw = request.raw.rawHeaders;
  let count = 0;
  for (let i = 0; i < raw.length; i += 2) if (raw[i]?.toLowerCase() === 'authorization') count += 1;
  return count;
}

export function authenticate(backend: Pick<Backend, 'accounts' | 'rateLimits'>, limits: RateLimitDefaults, now: () => Date = () => new Date()) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    if (authorizationFields(request) > 1) throw new ApiError('unauthorized', 'More than one Authorization header.');
    const key = presentedKey(request);
    if (key === null) throw new ApiError('unauthorized', 'An API key is required: X-Api-Key or Authorization: Bearer.');
    if (keyShape(key) === null) throw new ApiError('unauthorized', 'The API key is malformed.');
    const found = await backend.accounts.findActiveKey(hashApiKey(key));
    if (!found) throw new ApiError('unauthorized', 'The API key is unknown or revoked.');
    request.apiKey = found;

    const { id, perSecond, burst } = bucketOf(request, found, limits);
    const decision = await backend.rateLimits.consumeToken({ keyId: id, now: now(), perSecond, burst });
    const headers = {
      'ratelimit-limit': String(burst),
      'ratelimit-remaining': String(decision.remaining),
      'ratelimit-reset': String(Math.max(decision.allowed ? 0 : 1, Math.ceil(decision.resetMs / 1000))),
    };
    if (!decision.allowed) {
      const retryAfter = Math.max(1, Math.ceil(decision.retryAfterMs / 1000));
      throw new ApiError('rate_limited', undefined, { ...headers, 'retry-after': String(retryAfter) });
    }
    void reply.headers(headers);
  };
}
