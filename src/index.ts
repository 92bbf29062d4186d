/**
 * The package entry (`import … from 'presend'`): the engine, the configuration loader and the
 * typed client. The service is run with `presend serve`, not imported; the mail world is a
 * subpath of its own (`presend/mailworld`) so production code never loads test servers.
 */
export {
  createEngine,
  createSandboxEngine,
  parseAddress,
  normalizeAddress,
  classifyRcptReply,
  createMemorySessionLimiter,
  createMemoryFactsCache,
  systemClock,
  PUBLIC_VERDICTS,
  PRESEND_DECISIONS,
  ENVELOPE_STATUSES,
  OUTCOMES,
  REASON_CODES,
} from './core/index.js';
export type {
  Engine,
  EngineConfig,
  EngineDeps,
  VerifyOptions,
  OperatorLists,
  SessionLimiter,
  FactsCache,
  Clock,
  EngineResult,
  PresendEnvelope,
  PublicVerdict,
  PreSendDecision,
  ReasonCode,
  LegacyDecision,
} from './core/index.js';
export { loadConfig, ConfigError } from './config.js';
export type { PresendConfig } from './config.js';
export { PresendClient, PresendApiError, IncompleteExportError } from './client/index.js';
