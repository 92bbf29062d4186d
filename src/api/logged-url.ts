/**
 * The URL of a request as the request log shows it: redacted by route, so that no secret a URL
 * carries reaches a log at any level (issue 21: the one-time set-password link was logged
 * whole at info level, and a log reader could choose the owner's password first).
 *
 * - A route names the path parameters that are secrets in its config (`secretParams`, e.g. the
 *   set-password link's `:token`); their values are logged as `[redacted]`.
 * - Query values are logged only for the parameters known to carry none (page sizes, cursors,
 *   ids); every other value is `[redacted]` — the upload form's `_csrf` token travels there, and
 *   `next` may hold a whole dashboard URL with one.
 * - A URL that matches no route is arbitrary input: its long path segments (a token or key sent
 *   to the wrong place) are redacted too.
 */
import type { FastifyRequest } from 'fastify';

export const REDACTED = '[redacted]';

/** The route option that names a route's secret path parameters: `{ config: { secretParams: ['token'] } }`. */
export interface SecretRouteConfig {
  secretParams?: readonly string[];
}

/** Query parameters whose values are never secret: the API's paging and the dashboard's filters. */
const PLAIN_QUERY = new Set(['limit', 'offset', 'cursor', 'before', 'list', 'only', 'set']);
/** Segments this long in an unmatched path may be a token or a key; ids of our routes are matched ones. */
const LONG_SEGMENT = 20;

function loggedQuery(query: string): string {
  if (query === '') return '';
  const shown = query.split('&').map((pair) => {
    const at = pair.indexOf('=');
    const name = at === -1 ? pair : pair.slice(0, at);
    return at === -1 || PLAIN_QUERY.has(name) ? pair : `${name}=${REDACTED}`;
  });
  return `?${shown.join('&')}`;
}

export function loggedUrl(request: FastifyRequest): string {
  const at = request.url.indexOf('?');
  const path = at === -1 ? request.url : request.url.slice(0, at);
  const query = at === -1 ? '' : request.url.slice(at + 1);
  const route = request.routeOptions.url;
  let shown: string;
  if (route === undefined) {
    shown = path
      .split('/')
      .map((segment) => (segment.length >= LONG_SEGMENT ? REDACTED : segment))
      .join('/');
  } else {
    const secret = (request.routeOptions.config as SecretRouteConfig | undefined)?.secretParams ?? [];
    const params = (request.params ?? {}) as Record<string, string | undefined>;
    shown = secret.length === 0 ? path : route.replace(/:(\w+)/g, (_, name: string) => (secret.includes(name) ? REDACTED : encodeURIComponent(params[name] ?? '')));
  }
  return shown + loggedQuery(query);
}
