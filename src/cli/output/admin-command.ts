/**
 * Runs one admin command (accounts, keys, credits, lists, purge, migrate): reads the
 * configuration (`--database` over PRESEND_DATABASE_URL), opens the backend, prints the result
 * as text or JSON, closes the backend. The service's refusals arrive as data and are mapped here
 * to exit codes (docs/cli.md); a thrown error (a store that cannot be reached, a bad flag) exits
 * with the code `exitCodeFor` gives it.
 */
import { loadCommandConfig } from '../../config.js';
import type { PresendConfig } from '../../config.js';
import type { Backend } from '../../store/backend.js';
import { openBackend } from '../../store/open-backend.js';
import { createLogger } from '../../logger.js';
import type { AdminRefusal, AdminRefusalReason } from '../../service/operations/admin.js';
import { EXIT, UsageError, exitCodeFor } from './exit-codes.js';
import type { ExitCode } from './exit-codes.js';

/** Output of an admin command: text for people, or the same facts as JSON with --json. */
export interface AdminOutput {
  text: string;
  json: unknown;
}

/** What each refusal of the service means for the process. */
const EXIT_FOR: Record<AdminRefusalReason, ExitCode> = {
  invalid_argument: EXIT.usage,
  not_found: EXIT.failure,
  already_exists: EXIT.failure,
  unreadable_input: EXIT.badInput,
  empty_input: EXIT.badInput,
};

export function exitCodeForRefusal(refusal: AdminRefusal): ExitCode {
  return EXIT_FOR[refusal.reason];
}

/** A whole number ≥ `min` given as a flag or argument; anything else is a usage error. */
export function parseWholeNumber(text: string, what: string, min = 0): number {
  const n = /^\d+$/.test(text.trim()) ? Number(text.trim()) : NaN;
  if (!Number.isSafeInteger(n) || n < min) throw new UsageError(`${what} must be a whole number ≥ ${min}, got "${text}"`);
  return n;
}

function fail(message: string, code: ExitCode, json: boolean | undefined): void {
  if (json) process.stdout.write(JSON.stringify({ error: message }) + '\n');
  process.stderr.write(`presend: ${message}\n`);
  process.exitCode = code;
}

export async function runAdmin(
  flags: { database?: string; json?: boolean },
  fn: (backend: Backend, config: PresendConfig) => Promise<AdminOutput | AdminRefusal>,
): Promise<void> {
  try {
    const config = loadCommandConfig({ PRESEND_DATABASE_URL: flags.database });
    // Warnings of the store (a lost connection) go to stderr: stdout carries the command's answer.
    const backend = await openBackend(config.databaseUrl, { config, log: createLogger('warn', process.stderr) });
    let out: AdminOutput | AdminRefusal;
    try {
      out = await fn(backend, config);
    } finally {
      await backend.close();
    }
    if ('kind' in out) return fail(out.message, exitCodeForRefusal(out), flags.json);
    process.stdout.write(flags.json ? JSON.stringify(out.json, null, 2) + '\n' : out.text + '\n');
  } catch (err) {
    fail(err instanceof Error ? err.message : String(err), exitCodeFor(err), flags.json);
  }
}
