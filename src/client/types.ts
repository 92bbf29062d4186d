/**
 * The wire shapes of the four routes (docs/interface-spec.md §2, §4, §7), as the client sees them:
 * derived from the TypeBox schemas of src/api/schemas.ts, the one definition the server
 * validates and documents with, so the SDK cannot drift from what the server sends.
 */
import type { Static } from '@sinclair/typebox';
import type * as Wire from '../api/schemas.js';

/** Body of POST /v1/verify. `timeoutMs` (1–120000 ms) bounds the synchronous wait only. */
export type VerifyInput = Static<typeof Wire.VerifyInput>;

/** Present on a completed 200 answer of POST /v1/verify, absent on a 202. */
export type EngineMetadata = Static<typeof Wire.EngineMetadata>;

/**
 * Answer of POST /v1/verify. `status` is `completed` on a 200, `queued`/`running` on a 202;
 * on a 202, `engineJobId` is set: record it, never resubmit the check.
 */
export type VerifyResult = Static<typeof Wire.VerifyResult>;

/** ClientDecisionEnvelopeV1, the `presend` field. */
export type PresendEnvelope = Static<typeof Wire.Envelope>;

/** The legacy sibling `decision` object. */
export type LegacyDecision = Static<typeof Wire.LegacyDecision>;

/**
 * Body of POST /v1/requests: exactly one of the two. The schema can only say "no other
 * fields"; the type says "exactly one" too.
 */
export type BatchInput =
  | { emails: NonNullable<Static<typeof Wire.BatchInput>['emails']>; listId?: never }
  | { listId: NonNullable<Static<typeof Wire.BatchInput>['listId']>; emails?: never };

export type RequestDescriptor = Static<typeof Wire.RequestDescriptor>;

/** docs/design.md §4: `queued` → `running` → `completed` | `failed`. */
export type RequestState = RequestDescriptor['state'];

export type Finalization = Static<typeof Wire.Finalization>;

/** Integer counters; key names per docs/design.md §4 (`total`, `unique`, `pending`, `completed`, …). */
export type Counters = Static<typeof Wire.Counters> & Record<string, number>;

/** Answer of POST /v1/requests (202 new, 200 replay) and GET /v1/requests/{id}. */
export type BatchRequest = Omit<Static<typeof Wire.BatchRequest>, 'counters'> & { counters: Counters };

/** One address in a results page. The spec marks no field required. */
export type ResultItem = Static<typeof Wire.ResultItem>;

/** Answer of GET /v1/requests/{id}/results. `nextCursor` non-null: pass it back as `cursor`. */
export type ResultsPage = Static<typeof Wire.ResultsPage>;

/** The error body of every error status (docs/interface-spec.md §7). */
export type ApiErrorBody = Static<typeof Wire.ErrorBody>;
