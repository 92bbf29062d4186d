/**
 * The engine's public surface. Adding an export is a decision: the service, the worker,
 * the CLI and the benchmarks depend on exactly these names.
 *
 * Wiring:
 * - `createEngine(loadConfig(), { limiter, cache, lists, clock })` — every dep is optional:
 *   in-memory SessionLimiter (config.maxSessionsPerMx per MX host) and FactsCache by default;
 *   pass the store's shared ones on PostgreSQL. Keys the engine puts in the FactsCache:
 *   `mx:<domain>`, `host:<mx host>`, `catchall:<domain>`, `smtphost:<mx host>` (what was learnt
 *   about the host's defences, docs/engine-sessions.md) (plain JSON values).
 * - Without PRESEND_HELO_NAME / PRESEND_MAIL_FROM the engine still answers what syntax, lists
 *   and DNS decide; where a probe is needed it returns UNKNOWN, reason `probe_not_configured`.
 * - `verify()` never throws for an address's behaviour; `VerifyOptions.signal` ends a check
 *   early as TRANSIENT/`aborted`; `VerifyOptions.lists` adds an account's lists to the engine's.
 * - `verifyMany()` reports each result through `onResult` as soon as it is known; it shares
 *   DNS answers, catch-all probes and SMTP sessions across the batch.
 * - `createSandboxEngine(clock, { slowDelayMs, recheckDelayMs })` for `ps_test.` keys.
 * - `EngineResult.envelope.history` is always null: the service fills it.
 */
export { createEngine } from './verify.js';
export type { EngineDeps } from './verify.js';
export type { EngineConfig, EngineTuning } from './engine-config.js';
export { createSandboxEngine, sandboxKey, SANDBOX_SLOW_DELAY_MS } from './sandbox.js';
export type { SandboxOptions } from './sandbox.js';
export { parseAddress, normalizeAddress, SYNTAX_ERRORS } from './syntax/address.js';
export type { AddressParse, ParsedAddress, SyntaxError } from './syntax/address.js';
export { createMemorySessionLimiter } from './limiter.js';
export { createMemoryFactsCache } from './facts-cache.js';
export { createMemoryRoutePauses } from './egress/memory-route-pauses.js';
export { createMemoryPolitenessBudget } from './egress/memory-politeness-budget.js';
export { createDnsClient } from './dns/resolver.js';
export type { DnsClient, DnsAnswer, DnsFailure } from './dns/resolver.js';
export { classify } from './classify-finding.js';
export type { Classification, Finding, AddressTraits } from './classify-finding.js';
export { classifyRcptReply, saysNothingAboutMailbox } from './replies/classify-by-table.js';
export type { RcptClass, RcptJudgement } from './replies/classify-by-table.js';
export { REPLY_TABLE } from './replies/table.js';
export type { ReplyRule } from './replies/table.js';
export { buildEnvelope, buildResult, VERDICT_TABLE } from './envelope.js';
export { syntaxRejection } from './syntax-rejection.js';
export { isPrivateAddress } from './dns/address-safety.js';
export { familyOfHost, providerFamily } from './domain/provider-family.js';
export { systemClock } from './ports.js';
export type { Clock, Engine, FactsCache, OperatorLists, PolitenessBudget, PolitenessKind, RoutePauses, SessionLimiter, VerifyOptions, VerdictOf, WaitClock } from './ports.js';
export * from './types.js';
