/**
 * Exit codes of the commands, so scripts can branch without parsing text (docs/cli.md):
 * 0 done, 1 other failure, 2 usage (a bad flag, a missing argument, a file that is not
 * there), 3 auth (401), 4 credits (402), 5 still refused with 429 after the client's retries
 * (rate limited, or too much unfinished batch work),
 * 6 the input file cannot be read as a table (the message names the line).
 */
import { PresendApiError, PresendResponseError } from '../../client/index.js';
import { TableError } from '../../files/index.js';

export const EXIT = {
  ok: 0,
  failure: 1,
  usage: 2,
  auth: 3,
  credits: 4,
  rateLimited: 5,
  badInput: 6,
} as const;
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** A mistake in how the command was called (bad flag value, unreadable input file). */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

export function exitCodeFor(error: unknown): ExitCode {
  if (error instanceof UsageError) return EXIT.usage;
  if (error instanceof TableError) return error.code === 'not_found' || error.code === 'unreadable' ? EXIT.usage : EXIT.badInput;
  if (error instanceof PresendApiError || error instanceof PresendResponseError) {
    if (error.status === 401) return EXIT.auth;
    if (error.status === 402) return EXIT.credits;
    if (error.status === 429) return EXIT.rateLimited;
  }
  return EXIT.failure;
}
