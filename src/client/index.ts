/**
 * The Presend client SDK: `import { PresendClient } from 'presend/client'`.
 * Every export is listed by name: adding one is a decision.
 */
export { PresendClient, DEFAULT_BASE_URL } from './client.js';
export type { PresendClientOptions } from './client.js';
export type { CallOptions, SpendOptions, PageOptions } from './call-options.js';
export { PresendApiError, PresendResponseError, PresendNetworkError, IncompleteExportError, isRateLimited } from './errors.js';
export type { IncompleteExportReason } from './errors.js';
export type { ExportOptions, ExportProgress } from './export.js';
export { MAX_BATCH_EMAILS, planBatches, batchIdempotencyKey } from './batch-plan.js';
export type { BatchPlan, PlannedBatch, InvalidAddress, PlanOptions } from './batch-plan.js';
export type { BatchesProgress, CreateBatchesOptions, WaitForBatchesOptions, ExportBatchesOptions } from './batches.js';
export type { WaitOptions } from './wait.js';
export { isSettled } from './wait.js';
export type { RetryEvent } from './http.js';
export { clientOptionsFromEnv } from './env.js';
export type {
  VerifyInput,
  VerifyResult,
  EngineMetadata,
  BatchInput,
  BatchRequest,
  RequestDescriptor,
  RequestState,
  Finalization,
  Counters,
  ResultItem,
  ResultsPage,
  ApiErrorBody,
  PresendEnvelope,
  LegacyDecision,
} from './types.js';
