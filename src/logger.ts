/**
 * The one logger of a Presend process: pino, JSON lines, with API keys, cookies and form tokens
 * redacted (docs/design.md §3: keys never appear in logs; URLs are redacted by route,
 * src/api/logged-url.ts). The HTTP app, the services, the batch runner and the store each get
 * a child of it (`logger.child({ part: 'worker' })`), so every line of a process goes through one
 * stream at one level.
 */
import pino from 'pino';

export type Logger = pino.Logger;

/** Request headers that carry secrets: API keys, the dashboard's session and form-token cookies, a form token. */
const SECRET_HEADERS = ['["x-api-key"]', 'authorization', 'cookie', '["x-csrf-token"]', '["set-cookie"]'];

/**
 * Header paths that carry secrets, wherever a serializer or a plugin puts request headers: at the
 * top, under `req`, or one level down (@fastify/multipart logs `busboyOptions.headers` at trace).
 */
export const REDACTED_PATHS = ['req.headers', 'headers', '*.headers'].flatMap((at) => SECRET_HEADERS.map((header) => `${at}${header.startsWith('[') ? '' : '.'}${header}`));

/** `level` false: a logger that writes nothing (tests). `stream` defaults to stdout. */
export function createLogger(level: string | false, stream?: NodeJS.WritableStream): Logger {
  if (level === false) return pino({ enabled: false });
  const options: pino.LoggerOptions = { level, redact: { paths: REDACTED_PATHS, censor: '[redacted]' } };
  return stream ? pino(options, stream as pino.DestinationStream) : pino(options);
}

/** For libraries opened without a logger (tests, one-shot scripts): writes nothing. */
export const silentLogger: Logger = createLogger(false);
