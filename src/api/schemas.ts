/**
 * The interface's JSON schemas (interface-spec.md §2, §7), defined once with TypeBox: Fastify
 * validates requests and serialises responses with them, @fastify/swagger turns them into the
 * OpenAPI document, and the tests check every response body against them.
 */
import { Type } from '@sinclair/typebox';
import type { TSchema } from '@sinclair/typebox';
import {
  BILLING_DISPOSITIONS,
  ENVELOPE_STATUSES,
  OUTCOMES,
  PRESEND_DECISIONS,
  PUBLIC_VERDICTS,
} from '../core/types.js';

const strict = { additionalProperties: false } as const;
const union = (values: readonly string[]) => Type.Union(values.map((v) => Type.Literal(v)));
const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
const DateTime = Type.String({ format: 'date-time' });

export const Email = Type.String({ format: 'email', maxLength: 320 });

export const VerifyInput = Type.Object(
  {
    email: Email,
    timeoutMs: Type.Optional(Type.Integer({ minimum: 1, maximum: 120000, description: 'Bounds the synchronous wait only.' })),
  },
  { ...strict, title: 'VerifyInput' },
);

export const RetryWindow = Type.Object(
  { eligible_at: DateTime, expires_at: DateTime, affinity_required: Type.Boolean() },
  { ...strict, title: 'RetryWindow' },
);

export const Billing = Type.Object(
  { disposition: union(BILLING_DISPOSITIONS), credits: Type.Integer({ minimum: 0 }) },
  { ...strict, title: 'Billing' },
);

/** DESIGN.md §4: null when the account never checked this address before. */
export const History = Type.Object(
  {
    checks: Type.Integer({ minimum: 1 }),
    firstCheckedAt: DateTime,
    lastCheckedAt: DateTime,
    lastVerdict: Nullable(union(PUBLIC_VERDICTS)),
  },
  { title: 'AddressHistory' },
);

export const Envelope = Type.Object(
  {
    contract_version: Type.Literal(1),
    status: union(ENVELOPE_STATUSES),
    outcome: union(OUTCOMES),
    decision: Nullable(union(PRESEND_DECISIONS)),
    verdict: Nullable(union(PUBLIC_VERDICTS)),
    provider_family: Nullable(Type.String()),
    confidence: Nullable(Type.Number({ minimum: 0, maximum: 1 })),
    reasons: Type.Array(Type.String()),
    evidence_class: Nullable(Type.String()),
    retry: Nullable(RetryWindow),
    billing: Billing,
    history: Nullable(History),
  },
  { ...strict, title: 'ClientDecisionEnvelopeV1' },
);

/** The legacy sibling `decision` (DESIGN.md §4). */
export const LegacyDecision = Type.Object(
  {
    result: union(['deliverable', 'undeliverable', 'risky', 'unknown']),
    reason: Type.String(),
    didYouMean: Nullable(Type.String()),
  },
  { title: 'LegacyDecision' },
);

export const EngineMetadata = Type.Object(
  { verifiedAt: DateTime, attempts: Type.Integer({ minimum: 0 }), providerFamily: Type.String() },
  { ...strict, title: 'EngineMetadata' },
);

export const VerifyResult = Type.Object(
  {
    status: union(['completed', 'queued', 'running']),
    presend: Envelope,
    requestId: Type.String(),
    decision: Type.Optional(Nullable(LegacyDecision)),
    engine: Type.Optional(EngineMetadata),
    engineJobId: Type.Optional(Type.String()),
  },
  { title: 'VerifyResult' },
);

export const BatchInput = Type.Object(
  {
    emails: Type.Optional(Type.Array(Email, { minItems: 1, maxItems: 10000 })),
    listId: Type.Optional(Type.String({ format: 'uuid' })),
  },
  { ...strict, title: 'BatchInput', description: 'Exactly one of emails or listId.' },
);

const CounterKeys = [
  'total',
  'unique',
  'duplicates',
  'pending',
  'completed',
  'failed',
  'rechecking',
  'send',
  'suppress',
  'sendWithCaution',
  'enrichFirst',
  'recheckLater',
  'manualReview',
  'doNotDecide',
  'creditsHeld',
  'creditsDebited',
  'creditsReleased',
] as const;

export const Counters = Type.Object(
  Object.fromEntries(CounterKeys.map((k) => [k, Type.Integer({ minimum: 0 })])) as Record<(typeof CounterKeys)[number], ReturnType<typeof Type.Integer>>,
  { title: 'Counters', additionalProperties: Type.Integer({ minimum: 0 }) },
);

export const Finalization = Type.Object(
  {
    finalizedAt: DateTime,
    outcome: union(['completed', 'failed']),
    results: Type.Integer({ minimum: 0 }),
    creditsDebited: Type.Integer({ minimum: 0 }),
    creditsReleased: Type.Integer({ minimum: 0 }),
  },
  { title: 'Finalization' },
);

export const RequestDescriptor = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    mode: union(['emails', 'list']),
    state: union(['queued', 'running', 'completed', 'failed']),
    errorCode: Type.Optional(Nullable(Type.String())),
    retentionExpiresAt: Type.Optional(Nullable(DateTime)),
    createdAt: DateTime,
    partial: Type.Boolean(),
    finalized: Type.Boolean(),
    countsMayChange: Type.Boolean(),
    finalization: Type.Optional(Nullable(Finalization)),
  },
  { title: 'RequestDescriptor' },
);

export const BatchRequest = Type.Object(
  {
    request: RequestDescriptor,
    counters: Counters,
    replayed: Type.Optional(Type.Boolean()),
    requestId: Type.String(),
  },
  { title: 'BatchRequest' },
);

export const ResultItem = Type.Object(
  {
    email: Type.Optional(Type.String()),
    checkedAt: Type.Optional(DateTime),
    state: Type.Optional(Type.String()),
    score: Type.Optional(Nullable(Type.Number())),
    subStatus: Type.Optional(Nullable(Type.String())),
    reasonCodes: Type.Optional(Nullable(Type.Array(Type.String()))),
    decision: Type.Optional(Nullable(LegacyDecision)),
    presend: Type.Optional(Envelope),
  },
  { title: 'ResultItem' },
);

export const ResultsPage = Type.Object(
  {
    jobId: Type.String({ format: 'uuid' }),
    results: Type.Array(ResultItem),
    limit: Type.Integer(),
    offset: Type.Integer(),
    nextCursor: Nullable(Type.String()),
    partial: Type.Boolean(),
    finalized: Type.Boolean(),
    countsMayChange: Type.Boolean(),
    requestId: Type.String(),
  },
  { title: 'ResultsPage' },
);

export const ErrorBody = Type.Object(
  {
    error: Type.Object({ code: Type.String(), message: Type.String(), requestId: Type.String() }, strict),
  },
  { ...strict, title: 'Error' },
);

export const IdempotencyHeaders = Type.Object({
  'idempotency-key': Type.String({ minLength: 1, description: 'A unique key per logical operation; reuse only with an identical body.' }),
});

export const RequestIdParams = Type.Object({ id: Type.String({ description: 'The request.id from creation (uuid).' }) });

export const ResultsQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50, description: 'Page size; clamped into 1–200.' })),
  cursor: Type.Optional(Type.String({ minLength: 1, description: 'Opaque nextCursor of the preceding page (canonical).' })),
  offset: Type.Optional(Type.Integer({ minimum: 0, default: 0, description: 'Deprecated; ignored when cursor is given.' })),
});
