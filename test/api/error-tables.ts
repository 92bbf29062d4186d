/** The tables of docs/errors.md ("The codes"), rendered from the error catalog and the API's status tables. */
import { ERROR_CATALOG, ERROR_CODES } from '../../src/service/errors.js';
import type { ErrorCode } from '../../src/service/errors.js';
import { HTTP_STATUS, ROUTE_ERRORS, ROUTE_NAMES, statusOf } from '../../src/api/errors.js';

function statusText(code: ErrorCode): string {
  const exceptions = ROUTE_NAMES.filter((r) => ROUTE_ERRORS[r].codes.includes(code) && statusOf(code, r) !== HTTP_STATUS[code]);
  if (exceptions.length === 0) return String(HTTP_STATUS[code]);
  const usual = ROUTE_NAMES.filter((r) => ROUTE_ERRORS[r].codes.includes(code) && !exceptions.includes(r));
  return [`${HTTP_STATUS[code]} (${usual.map((r) => `\`${r}\``).join(', ')})`, ...exceptions.map((r) => `${statusOf(code, r)} (\`${r}\`)`)].join(', ');
}

/** The tables docs/errors.md must contain, rendered from the catalog. */
export function renderErrorTables(): string {
  const codes = ERROR_CODES.map((c) => `| \`${c}\` | ${statusText(c)} | ${ERROR_CATALOG[c].message} | ${ERROR_CATALOG[c].when} |`);
  const routes = ROUTE_NAMES.map((r) => `| \`${r}\` | ${ROUTE_ERRORS[r].statuses.join(', ')} | ${ROUTE_ERRORS[r].codes.map((c) => `\`${c}\``).join(', ')} |`);
  return [
    '| code | HTTP status | default message | raised when |',
    '|---|---|---|---|',
    ...codes,
    '',
    '| route | error statuses (docs/interface-spec.md §7) | codes |',
    '|---|---|---|',
    ...routes,
  ].join('\n');
}
