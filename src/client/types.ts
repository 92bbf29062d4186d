/**
 * The wire shapes of the four routes (interface-spec.md §2, §4, §7), as the client sees them.
 * The envelope and its vocabularies come from src/core/types.ts so the SDK, the CLI, the MCP
 * server and the service share one definition of the pre-send contract.
 */
import type { LegacyDecision, PresendEnvelope } from '../core/types.js';

export type { PresendEnvelope, LegacyDecision } from '../core/types.js';

/** Body of POST /v1/verify. */
export interface VerifyInput {
  email: string;
  /** 1–120000 ms; bounds the synchronous wait only, not the quality of the check. */
  timeoutMs?: number;
}

/** Present on a completed 200 answer of POST /v1/verify, absent on a 202. */
export interface EngineMetadata {
  verifiedAt: string;
  attempts: number;
  providerFamily: string;
}

/** Answer of POST /v1/verify. `status` is `completed` on a 200, `queued`/`running` on a 202. */
export interface VerifyResult {
  status: 'completed' | 'queued' | 'running';
  presend: PresendEnvelope;
  requestId: string;
  decision?: LegacyDecision | null;
  engine?: EngineMetadata;
  /** Present on a 202: the bounded wait ended first. Record it; never resubmit the check. */
  engineJobId?: string;
}

/** Body of POST /v1/requests: exactly one of the two. */
export type BatchInput = { emails: string[]; listId?: never } | { listId: string; emails?: never };

/** DESIGN.md §4: `queued` → `running` → `completed` | `failed`. Open in the spec, so kept open here. */
export type RequestState = 'queued' | 'running' | 'completed' | 'failed' | (string & {});

export interface Finalization {
  finalizedAt: string;
  outcome: 'completed' | 'failed';
  results: number;
  creditsDebited: number;
  creditsReleased: number;
}

export interface RequestDescriptor {
  id: string;
  mode: 'emails' | 'list' | (string & {});
  state: RequestState;
  errorCode?: string | null;
  retentionExpiresAt?: string | null;
  createdAt: string;
  partial: boolean;
  finalized: boolean;
  countsMayChange: boolean;
  finalization?: Finalization | null;
}

/** Integer counters; key names per DESIGN.md §4 (`total`, `unique`, `pending`, `completed`, …). */
export type Counters = Record<string, number>;

/** Answer of POST /v1/requests (202 new, 200 replay) and GET /v1/requests/{id}. */
export interface BatchRequest {
  request: RequestDescriptor;
  counters: Counters;
  replayed?: boolean;
  requestId: string;
}

/** One address in a results page. The spec marks no field required. */
export interface ResultItem {
  email?: string;
  checkedAt?: string;
  state?: string;
  score?: number | null;
  subStatus?: string | null;
  reasonCodes?: string[] | null;
  decision?: LegacyDecision | null;
  presend?: PresendEnvelope;
}

/** Answer of GET /v1/requests/{id}/results. */
export interface ResultsPage {
  jobId: string;
  results: ResultItem[];
  limit: number;
  offset: number;
  /** Non-null: pass back as `cursor`. Null: the last page as of now. */
  nextCursor: string | null;
  partial: boolean;
  finalized: boolean;
  countsMayChange: boolean;
  requestId: string;
}

/** The error body of every error status (interface-spec.md §7). */
export interface ApiErrorBody {
  error: { code: string; message: string; requestId: string };
}
