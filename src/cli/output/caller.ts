/**
 * What every caller command shares: the connection flags (--api-key, --base-url, --json),
 * building the one PresendClient, the one progress bar (retries fold into it), and turning a
 * failure into a message and an exit code.
 */
import { InvalidArgumentError, type Command } from 'commander';
import { PresendClient, clientOptionsFromEnv } from '../../client/index.js';
import { UsageError } from './exit-codes.js';
import { createProgress, type Progress } from './progress.js';
import { reportError } from './report-error.js';
import { RetryNotes } from './retry-notes.js';

export interface ConnectionFlags {
  apiKey?: string;
  baseUrl?: string;
  json?: boolean;
}

export interface CallerContext {
  client: PresendClient;
  json: boolean;
  /** A line for the person at the terminal; stderr, so stdout stays data. */
  note(message: string): void;
  /** The command's one progress bar (a no-op off a terminal). */
  progress: Progress;
}

export function addConnectionOptions(command: Command): Command {
  return command
    .option('--api-key <key>', 'API key (default: $PRESEND_API_KEY; prefer the variable: flags show in process lists)')
    .option('--base-url <url>', 'service address (default: $PRESEND_BASE_URL, else http://127.0.0.1:8080)')
    .option('--json', 'print machine-readable JSON on stdout');
}

/**
 * Runs a caller command: builds the client from flags and environment, runs `body`, and on
 * failure prints the error (never the key) and sets the exit code.
 */
export async function runCaller(flags: ConnectionFlags, body: (context: CallerContext) => Promise<number | void>): Promise<void> {
  const settings = clientOptionsFromEnv(process.env, { apiKey: flags.apiKey, baseUrl: flags.baseUrl });
  const json = flags.json === true;
  const progress = createProgress();
  const note = (message: string): void => {
    // A line written under a live bar would be overdrawn by its next redraw.
    progress.stop();
    process.stderr.write(message + '\n');
  };
  const retries = new RetryNotes(note, progress);
  try {
    if (settings.apiKey === null) throw new UsageError('no API key: set PRESEND_API_KEY or pass --api-key');
    let client: PresendClient;
    try {
      client = new PresendClient({ baseUrl: settings.baseUrl, apiKey: settings.apiKey, onRetry: (event) => retries.record(event) });
    } catch (error) {
      throw new UsageError(error instanceof Error ? error.message : String(error));
    }
    const code = await body({ client, json, note, progress });
    if (typeof code === 'number') process.exitCode = code;
  } catch (error) {
    progress.stop();
    process.exitCode = reportError(error, { json, apiKey: settings.apiKey });
  } finally {
    progress.stop();
    retries.summary();
  }
}

/** commander argument parser for positive integers within bounds; a bad value is a usage error (exit 2). */
export function integerOption(name: string, min: number, max: number): (value: string) => number {
  return (value: string) => {
    if (!/^\d+$/.test(value.trim())) throw new InvalidArgumentError(`${name} must be an integer, got "${value}"`);
    const parsed = Number(value.trim());
    if (parsed < min || parsed > max) throw new InvalidArgumentError(`${name} must be between ${min} and ${max}, got ${parsed}`);
    return parsed;
  };
}
