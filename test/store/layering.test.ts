/**
 * Which modules each backend loads, read from the import statements of the sources: the
 * PostgreSQL backend never loads SQLite's native module, the SQLite backend never loads pg, and
 * the queue (transport) never reaches into the service.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));

/** Every module `entry` loads, statically or by a dynamic import of a literal path; bare specifiers as they are. */
function loads(entry: string): Set<string> {
  const seen = new Set<string>();
  const visit = (file: string): void => {
    if (seen.has(file)) return;
    seen.add(file);
    const text = readFileSync(file, 'utf8');
    // Type-only imports are erased at build time: they load nothing.
    const specifiers = [...text.matchAll(/^import (?!type )[^;]*?from '([^']+)'|^export [^;]*? from '([^']+)'|import\('([^']+)'\)/gm)].map((m) => m[1] ?? m[2] ?? m[3] ?? '');
    for (const spec of specifiers) {
      if (!spec.startsWith('.')) {
        seen.add(spec);
        continue;
      }
      visit(resolve(dirname(file), spec).replace(/\.js$/, '.ts'));
    }
  };
  visit(resolve(SRC, entry));
  return seen;
}

const inside = (modules: Set<string>, part: string) => [...modules].filter((m) => m.startsWith(resolve(SRC, part)));

test('the PostgreSQL backend loads no SQLite code and not better-sqlite3', () => {
  const modules = loads('store/postgres/backend.ts');
  assert.ok(modules.has('pg'));
  assert.deepEqual(inside(modules, 'store/sqlite'), []);
  assert.equal(modules.has('better-sqlite3'), false);
});

test('the SQLite backend loads no PostgreSQL code and not pg', () => {
  const modules = loads('store/sqlite/backend.ts');
  assert.ok(modules.has('better-sqlite3'));
  assert.deepEqual(inside(modules, 'store/postgres'), []);
  assert.equal(modules.has('pg'), false);
});

test('opening a backend loads a dialect only when its URL asks for it, by a literal path', () => {
  const text = readFileSync(resolve(SRC, 'store/open-backend.ts'), 'utf8');
  assert.doesNotMatch(text, /^import (?!type )[^;]*from '\.\/(sqlite|postgres)\//m, 'no static import of a dialect');
  assert.match(text, /await import\('\.\/sqlite\/backend\.js'\)/);
  assert.match(text, /await import\('\.\/postgres\/backend\.js'\)/);
});

test('the queue is transport: it loads nothing of the service, and the store nothing of the service or the API', () => {
  for (const entry of ['queue/postgres-notify.ts', 'queue/embedded.ts', 'store/postgres/backend.ts', 'store/sqlite/backend.ts']) {
    const modules = loads(entry);
    assert.deepEqual([...inside(modules, 'service'), ...inside(modules, 'api'), ...inside(modules, 'cli')], [], entry);
  }
});
