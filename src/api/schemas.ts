/**
 * The interface's JSON schemas (docs/interface-spec.md §2, §7), defined once with TypeBox: Fastify
 * validates requests and serialises responses with them, @fastify/swagger turns them into the
 * OpenAPI document (each titled schema becomes a named component), the SDK derives its types
 * from them (`Static<>`) and validates answers with them, and the tests check every response
 * body and the MCP server's zod schemas against them.
 *
 * The SDK imports this module, so it imports nothing of the server: TypeBox, the engine's
 * vocabularies and its address syntax check only (the ESLint rule for src/api/schemas.ts
 * keeps it so). Importing it registers the formats and the string-enum kind its schemas use
 * with TypeBox, so `Value.Check` works wherever the module is loaded.
 */
import { FormatRegistry, Kind, Type, TypeRegistry } from '@sinclair/typebox';
import type { TSchema, TUnsafe } from '@sinclair/typebox';
import {
  BILLING_DISPOSITIONS,
  ENVELOPE_STATUSES,
  OUTCOMES,
  PRESEND_DECISIONS,
  PUBLIC_VERDICTS,
} from '../core/types.js';
import { parseAddress } from '../core/syntax/address.js';
import { ERROR_CODES } from '../service/errors.js';

// RFC 3339 §5.6 date-time (JSON Schema's `date-time`), RFC 9562 uuid, and the interface's email
// format: the engine's syntax check (RFC 5321 + SMTPUTF8 + IDNA), the same one ajv uses.
FormatRegistry.Set('date-time', (v) => /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i.test(v) && !Number.isNaN(Date.parse(v)));
FormatRegistry.Set('uuid', (v) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(v));
FormatRegistry.Set('email', (v) => parseAddress(v).ok);

/**
 * A string enum as JSON Schema writes it (`{type: 'string', enum: [...]}`), so OpenAPI shows one
 * enum instead of a union of constants (TypeBox's string-enum recipe: a registered kind).
 */
TypeRegistry.Set<{ enum: readonly string[] }>('StringEnum', (schema, value) => typeof value === 'string' && schema.enum.includes(value));
export function StringEnum<const T extends readonly string[]>(values: T, options: Record<string, unknown> = {}): TUnsafe<T[number]> {
  return Type.Unsafe<T[number]>({ ...options, [Kind]: 'StringEnum', type: 'string', enum: [...values] });
}

const strict = { additionalProperties: false } as const;
const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
const DateTime = Type.String({ format: 'date-time' });

export const Email = Type.String({ format: 'email', maxLength: 320 });

export const VerifyInput = Type.Object(
  {
    email: Type.String({ format: 'email', maxLength: 320, description: 'The address to verify.' }),
    timeoutMs: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 120000, description: 'Bounds the synchronous wait only (default 15000); does not change the quality of the check.' }),
    ),
  },
  { ...strict, title: 'VerifyInput', description: 'Body of POST /v1/verify.' },
);

export const RetryWindow = Type.Object(
  { eligible_at: DateTime, expires_at: DateTime, affinity_required: Type.Boolean() },
  { ...strict, title: 'RetryWindow', description: 'When a recheck may run, and whether it must come from the same egress (greylisting).' },
);

export const Billing = Type.Object(
  { disposition: StringEnum(BILLING_DISPOSITIONS), credits: Type.Integer({ minimum: 0 }) },
  { ...strict, title: 'Billing', description: 'debited: an actionable verdict, 1 credit. released: a non-verdict, 0. held: pending in a batch, 1.' },
);

const Sighting = { at: DateTime, source: Type.String({ description: 'csv, dsn, ses, sendgrid, postmark or mailgun (an open set).' }) };

export const History = Type.Object(
  {
    checks: Type.Integer({ minimum: 0, description: 'Earlier checks of the address by this account; 0 when only feedback is known.' }),
    firstCheckedAt: Nullable(DateTime),
    lastCheckedAt: Nullable(DateTime),
    lastVerdict: Nullable(StringEnum(PUBLIC_VERDICTS)),
    lastHardBounce: Nullable(
      Type.Object(
        { ...Sighting, code: Nullable(Type.String({ description: 'The bounce\'s enhanced status code (RFC 3463) or reply code, as reported.' })) },
        { ...strict, title: 'HardBounceSeen' },
      ),
    ),
    softBounces: Nullable(Type.Object({ ...Sighting, count: Type.Integer({ minimum: 1 }) }, { ...strict, title: 'SoftBouncesSeen', description: 'How many, and the last one.' })),
    lastDelivery: Nullable(Type.Object(Sighting, { ...strict, title: 'DeliverySeen' })),
    complaints: Nullable(Type.Object({ ...Sighting, count: Type.Integer({ minimum: 1 }) }, { ...strict, title: 'ComplaintsSeen', description: 'How many, and the last one.' })),
  },
  {
    ...strict,
    title: 'AddressHistory',
    description: 'This account’s earlier checks of the address and its own send feedback (docs/feedback.md); the envelope has null when there is neither.',
  },
);

export const Envelope = Type.Object(
  {
    contract_version: Type.Literal(1),
    status: StringEnum(ENVELOPE_STATUSES),
    outcome: StringEnum(OUTCOMES),
    decision: Nullable(StringEnum(PRESEND_DECISIONS, { description: 'The recommended action. A null decision is not permission to send.' })),
    verdict: Nullable(StringEnum(PUBLIC_VERDICTS)),
    provider_family: Nullable(Type.String({ description: 'From the MX host names: google, microsoft, yahoo, apple, zoho, proton, fastmail, mimecast, proofpoint, barracuda, other; null when there are no MX hosts.' })),
    confidence: Nullable(Type.Number({ minimum: 0, maximum: 1, description: 'How sure the verdict is; null without a verdict.' })),
    reasons: Type.Array(Type.String(), { description: 'snake_case reason codes, e.g. smtp_rcpt_accepted, mailbox_not_found, catch_all_domain (an open set).' }),
    evidence_class: Nullable(Type.String({ description: 'Where the verdict came from: smtp_rcpt, smtp_catch_all_probe, dns, syntax, domain_list, sandbox, cache, bounce_history, delivery_history; null without a verdict.' })),
    retry: Nullable(RetryWindow),
    billing: Billing,
    history: Nullable(History),
  },
  { ...strict, title: 'ClientDecisionEnvelopeV1', description: 'The pre-send envelope (`presend`), contract version 1: the main output of every check.' },
);

export const LegacyDecision = Type.Object(
  {
    result: StringEnum(['deliverable', 'undeliverable', 'risky', 'unknown']),
    reason: Type.String(),
    didYouMean: Nullable(Type.String()),
  },
  { title: 'LegacyDecision', description: 'The legacy sibling `decision`, kept during the compatibility window of contract version 1.' },
);

export const EngineMetadata = Type.Object(
  { verifiedAt: DateTime, attempts: Type.Integer({ minimum: 0 }), providerFamily: Type.String() },
  { ...strict, title: 'EngineMetadata', description: 'Present on a completed 200 answer; absent on a 202.' },
);

export const VerifyResult = Type.Object(
  {
    status: StringEnum(['completed', 'queued', 'running']),
    presend: Envelope,
    requestId: Type.String({ description: 'Correlation identifier (also in X-Request-Id).' }),
    decision: Type.Optional(Nullable(LegacyDecision)),
    engine: Type.Optional(EngineMetadata),
    engineJobId: Type.Optional(Type.String({ description: 'On a 202: record it; there is no route to poll a single check.' })),
  },
  { title: 'VerifyResult', description: 'Answer of POST /v1/verify.' },
);

export const BatchInput = Type.Object(
  {
    emails: Type.Optional(Type.Array(Email, { minItems: 1, maxItems: 10000 })),
    listId: Type.Optional(Type.String({ format: 'uuid', description: 'A ready list stored in the account.' })),
  },
  { ...strict, title: 'BatchInput', description: 'Body of POST /v1/requests: exactly one of `emails` or `listId`.' },
);

/** docs/design.md §4. */
export const COUNTER_KEYS = [
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
  {
    ...(Object.fromEntries(COUNTER_KEYS.map((k) => [k, Type.Integer({ minimum: 0 })])) as Record<(typeof COUNTER_KEYS)[number], ReturnType<typeof Type.Integer>>),
    nextRecheckInSeconds: Type.Optional(
      Type.Integer({ minimum: 0, description: 'Present only while `rechecking` > 0: seconds until the earliest greylisting recheck is due (0: due now).' }),
    ),
  },
  {
    title: 'Counters',
    additionalProperties: Type.Integer({ minimum: 0 }),
    description:
      'Addresses given, unique, duplicates; items pending, completed, failed, rechecking; one count per decision; credits held, debited, released; while a recheck waits, the seconds until it is due.',
  },
);

export const Finalization = Type.Object(
  {
    finalizedAt: DateTime,
    outcome: StringEnum(['completed', 'failed']),
    results: Type.Integer({ minimum: 0 }),
    creditsDebited: Type.Integer({ minimum: 0 }),
    creditsReleased: Type.Integer({ minimum: 0 }),
  },
  { title: 'Finalization', description: 'Set once the request is final; null before.' },
);

export const RequestDescriptor = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    mode: StringEnum(['emails', 'list']),
    state: StringEnum(['queued', 'running', 'completed', 'failed'], { description: 'queued → running → completed or failed.' }),
    errorCode: Type.Optional(Nullable(Type.String({ description: 'Why a failed request failed (an error code, e.g. engine_unavailable).' }))),
    retentionExpiresAt: Type.Optional(Nullable(DateTime)),
    createdAt: DateTime,
    partial: Type.Boolean({ description: 'true: result pages are a progress view, not proof of a complete collection.' }),
    finalized: Type.Boolean({ description: 'true: the collection of results is complete.' }),
    countsMayChange: Type.Boolean({ description: 'true while later processing can still change the counters.' }),
    finalization: Type.Optional(Nullable(Finalization)),
  },
  { title: 'RequestDescriptor' },
);

export const BatchRequest = Type.Object(
  {
    request: RequestDescriptor,
    counters: Counters,
    replayed: Type.Optional(Type.Boolean({ description: 'true on an idempotent replay.' })),
    requestId: Type.String(),
  },
  { title: 'BatchRequest', description: 'Answer of POST /v1/requests and GET /v1/requests/{id}.' },
);

export const ResultItem = Type.Object(
  {
    email: Type.Optional(Type.String()),
    checkedAt: Type.Optional(DateTime),
    state: Type.Optional(StringEnum(ENVELOPE_STATUSES, { description: 'Equals presend.status.' })),
    score: Type.Optional(Nullable(Type.Number({ minimum: 0, maximum: 100, description: '0–100 deliverability likelihood; null for non-verdicts.' }))),
    subStatus: Type.Optional(Nullable(Type.String({ description: 'The main reason code.' }))),
    reasonCodes: Type.Optional(Nullable(Type.Array(Type.String(), { description: 'Equals presend.reasons.' }))),
    decision: Type.Optional(Nullable(LegacyDecision)),
    presend: Type.Optional(Envelope),
  },
  { title: 'ResultItem', description: 'One unique address of a batch.' },
);

export const ResultsPage = Type.Object(
  {
    jobId: Type.String({ format: 'uuid' }),
    results: Type.Array(ResultItem),
    limit: Type.Integer({ minimum: 1, maximum: 200, description: 'Page size applied.' }),
    offset: Type.Integer({ minimum: 0, description: 'Position of the first item.' }),
    nextCursor: Nullable(Type.String({ description: 'Non-null: pass back as `cursor`. Null: the last page as of now.' })),
    partial: Type.Boolean(),
    finalized: Type.Boolean(),
    countsMayChange: Type.Boolean(),
    requestId: Type.String(),
  },
  { title: 'ResultsPage', description: 'One page of GET /v1/requests/{id}/results.' },
);

export const ErrorBody = Type.Object(
  {
    error: Type.Object(
      { code: StringEnum(ERROR_CODES, { description: 'See docs/errors.md.' }), message: Type.String(), requestId: Type.String() },
      strict,
    ),
  },
  { ...strict, title: 'Error', description: 'The body of every error status.' },
);

/** The longest Idempotency-Key accepted: it is stored with every check, so a longer one is a 400. */
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;

export const IdempotencyHeaders = Type.Object({
  'idempotency-key': Type.String({
    minLength: 1,
    maxLength: MAX_IDEMPOTENCY_KEY_LENGTH,
    description: `A unique key per logical operation (1–${MAX_IDEMPOTENCY_KEY_LENGTH} characters); reuse only with an identical body.`,
  }),
});

export const RequestIdParams = Type.Object({ id: Type.String({ description: 'The request.id from creation (uuid).' }) });

export const ResultsQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50, description: 'Page size; clamped into 1–200.' })),
  cursor: Type.Optional(Type.String({ minLength: 1, description: 'Opaque nextCursor of the preceding page (canonical).' })),
  offset: Type.Optional(Type.Integer({ minimum: 0, default: 0, description: 'Deprecated; ignored when cursor is given.' })),
});
