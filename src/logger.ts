/**
 * The one logger of a Presend process: pino, JSON lines, with API keys redacted (docs/design.md §3:
 * keys never appear in logs). The HTTP app, the services, the batch runner and the store each get
 * a child of it (`logger.child({ part: 'worker' })`), so every line of a process goes through one
 * stream at one level.
 */
import pino from 'pino';

export type Logger = pino.Logger;

/** Header paths that carry keys, wherever a serializer puts request headers. */
export const REDACTED_PATHS = ['req.headers["x-api-key"]', 'req.headers.authorization', 'headers["x-api-key"]', 'headers.authorization'];

/** `level` false: a logger that writes nothing (tests). `stream` defaults to stdout. */
export function createLogger(level: string | false, stream?: NodeJS.WritableStream): Logger {
  if (level === false) return pino({ enabled: false });
  const options: pino.LoggerOptions = { level, redact: { paths: REDACTED_PATHS, censor: '[redacted]' } };
  return stream ? pino(options, stream as pino.DestinationStream) : pino(options);
}

/** For libraries opened without a logger (tests, one-shot scripts): writes nothing. */
export const silentLogger: Logger = createLogger(false);
