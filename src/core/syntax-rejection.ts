/**
 * The result for an address that fails the syntax check (docs/design.md §5: no verdict, decision
 * suppress, status rejected, never billed). The engine returns it from `verify`; the service uses
 * it for invalid entries of a stored list, which are final at batch creation without a probe.
 */
import { NO_TRAITS } from './address-facts.js';
import { classify } from './classify-finding.js';
import { buildResult } from './envelope.js';
import type { SyntaxError } from './syntax/address.js';
import type { EngineResult } from './types.js';

export function syntaxRejection(input: string, error: SyntaxError, now: Date): EngineResult {
  const classification = classify({ kind: 'syntax', error }, NO_TRAITS);
  return buildResult(classification, NO_TRAITS, { now, recheckDelayMs: 0 }, { input, email: input.trim(), attempts: 0, mxHost: null });
}
