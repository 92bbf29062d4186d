/** Turning service results into the wire shapes of docs/interface-spec.md §2. */
import type { BatchRequestView, ResultRow } from '../store/roles/batches/batch-records.js';
import type { VerificationRecord } from '../store/roles/verifications.js';
import { pendingEnvelope } from '../service/checks/envelopes.js';
import { flagsOf } from '../service/batches/results-service.js';

export function renderCompletedVerify(record: VerificationRecord, requestId: string) {
  const result = record.result;
  if (!result) throw new Error(`verification ${record.id} has no result`);
  return {
    status: 'completed' as const,
    presend: result.envelope,
    requestId,
    decision: result.legacy,
    engine: { verifiedAt: result.checkedAt, attempts: result.attempts, providerFamily: result.providerFamily },
  };
}

/** docs/interface-spec.md §3: a 202 carries `engineJobId`, no `engine`, and the pending envelope. */
export function renderPendingVerify(record: VerificationRecord, requestId: string) {
  return { status: 'running' as const, presend: pendingEnvelope(), requestId, decision: null, engineJobId: record.id };
}

export function renderBatch(view: BatchRequestView, requestId: string, replayed?: boolean) {
  return {
    request: {
      id: view.id,
      mode: view.mode,
      state: view.state,
      errorCode: view.errorCode,
      retentionExpiresAt: view.retentionExpiresAt,
      createdAt: view.createdAt,
      ...flagsOf(view.state),
      finalization: view.finalization,
    },
    counters: view.counters,
    ...(replayed ? { replayed: true } : {}),
    requestId,
  };
}

export function renderResultItem(row: ResultRow) {
  return {
    email: row.email,
    checkedAt: row.checkedAt,
    state: row.envelope.status,
    score: row.score,
    subStatus: row.envelope.reasons[0] ?? null,
    reasonCodes: row.envelope.reasons,
    decision: row.legacy,
    presend: row.envelope,
  };
}
