/**
 * The error catalog kept honest (docs/design.md §6, "one error catalog"; after Fastify's test):
 * every code of the service's catalog has an HTTP status in src/api, each route answers exactly the error statuses docs/interface-spec.md
 * §7 lists for it, docs/errors.md shows every code with its status, and no file of the service
 * imports src/api (layers point down).
 */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ERROR_CODES } from '../../src/service/errors.js';
import { HTTP_STATUS, ROUTE_ERRORS, ROUTE_NAMES, statusOf } from '../../src/api/errors.js';
import { renderErrorTables } from './error-tables.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** docs/interface-spec.md §7, "Status codes per route", copied from the spec. */
const SPEC_ERROR_STATUSES: Record<string, number[]> = {
  'POST /v1/verify': [400, 401, 402, 429, 502, 503],
  'POST /v1/requests': [400, 401, 402, 404, 422, 429, 503],
  'GET /v1/requests/{id}': [401, 404, 429],
  'GET /v1/requests/{id}/results': [401, 404, 429],
};

describe('the error catalog', () => {
  test('every code of the service catalog has exactly one HTTP status in src/api, and no status is given for an unknown code', () => {
    assert.deepEqual(Object.keys(HTTP_STATUS).sort(), [...ERROR_CODES].sort());
    for (const code of ERROR_CODES) assert.ok(HTTP_STATUS[code] >= 400 && HTTP_STATUS[code] < 600, code);
  });

  test('each route answers exactly the error statuses the spec lists for it, each carried by at least one code', () => {
    assert.deepEqual([...ROUTE_NAMES].sort(), Object.keys(SPEC_ERROR_STATUSES).sort());
    for (const route of ROUTE_NAMES) {
      const { statuses, codes } = ROUTE_ERRORS[route];
      assert.deepEqual([...statuses].sort(), [...(SPEC_ERROR_STATUSES[route] ?? [])].sort(), route);
      const produced = new Set(codes.map((c) => statusOf(c, route)));
      assert.deepEqual([...produced].sort(), [...statuses].sort(), `${route}: the statuses its codes produce`);
    }
  });

  test('idempotency_key_reused is 400 on POST /v1/verify and 422 on POST /v1/requests (docs/design.md §4)', () => {
    assert.equal(statusOf('idempotency_key_reused', 'POST /v1/verify'), 400);
    assert.equal(statusOf('idempotency_key_reused', 'POST /v1/requests'), 422);
  });

  test('docs/errors.md lists every code with its status, message and cause, and every route with its codes', () => {
    const doc = readFileSync(join(root, 'docs/errors.md'), 'utf8');
    const expected = renderErrorTables();
    // The section holds the two tables and nothing else.
    const section = /\n## The codes\n\n([\s\S]*?)\n\n(?=[^|])/.exec(doc)?.[1];
    assert.equal(section, expected, `docs/errors.md is out of date with the catalog; the section "The codes" should read:\n\n${expected}\n`);
  });
});

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []));
}

/** Every module a file imports or re-exports, resolved to a path under the repository. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const specs = [...text.matchAll(/(?:^|\n)\s*(?:import|export)\b[^'"]*?from\s+['"]([^'"]+)['"]/g), ...text.matchAll(/import\(\s*['"]([^'"]+)['"]\s*\)/g)].map((m) => m[1] ?? '');
  return specs.filter((s) => s.startsWith('.')).map((s) => relative(root, resolve(dirname(file), s)));
}

describe('layers point down', () => {
  test('no file of src/service, src/store, src/queue or src/core imports src/api', () => {
    const offenders = ['src/service', 'src/store', 'src/queue', 'src/core']
      .flatMap((d) => sourceFiles(join(root, d)))
      .flatMap((f) => importsOf(f).filter((i) => i.startsWith('src/api/')).map((i) => `${relative(root, f)} → ${i}`));
    assert.deepEqual(offenders, []);
  });

  // The SDK de-duplicates a file as the service will (docs/design.md §4, batch duplicates), so it may
  // use the engine's pure syntax module; nothing else of the server.
  test('the client SDK imports nothing of the server but the wire schemas and the address syntax', () => {
    const allowed = (i: string): boolean => i.startsWith('src/client/') || i === 'src/api/schemas.js' || i.startsWith('src/core/syntax/');
    const offenders = sourceFiles(join(root, 'src/client'))
      .flatMap((f) => importsOf(f).filter((i) => !allowed(i)).map((i) => `${relative(root, f)} → ${i}`));
    assert.deepEqual(offenders, []);
  });

  test('the import scan sees imports, so the checks above can fail', () => {
    const probe = importsOf(join(root, 'src/client/types.ts'));
    assert.ok(probe.includes('src/api/schemas.js'), JSON.stringify(probe));
  });
});
