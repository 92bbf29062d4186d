/**
 * Citations resolve inside the repository: a comment or message of the code that names a
 * document (`docs/design.md §6`, `BENCHMARKS.md`) names one a reader of the repository can open.
 * The brief's own documents live outside it; docs/design.md and docs/interface-spec.md are their
 * copies (test/docs/examples.test.ts), so `DESIGN.md` or `STYLE.md` alone point nowhere.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { REPO_ROOT } from '../client/live-service.js';

const SOURCES = ['src', 'test', 'bench'];
/** The tests that check the copies and the citations name the brief's originals on purpose. */
const NAMES_THE_BRIEF = new Set(['test/docs/examples.test.ts', 'test/docs/citations.test.ts']);

function codeFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : codeFiles(path);
    return /\.(ts|js|mjs)$/.test(entry.name) ? [path] : [];
  });
}

test('every document the code cites is a file of the repository', () => {
  const files = [...SOURCES.flatMap((dir) => codeFiles(join(REPO_ROOT, dir))), join(REPO_ROOT, 'eslint.config.js')];
  const missing: string[] = [];
  let cited = 0;
  for (const file of files) {
    const name = relative(REPO_ROOT, file);
    if (NAMES_THE_BRIEF.has(name)) continue;
    for (const [, doc] of readFileSync(file, 'utf8').matchAll(/(?<![\w/.-])([\w./-]*[A-Za-z]\.md)\b/g)) {
      cited += 1;
      // A path from the repository's root, or a name next to the citing file.
      if (!existsSync(join(REPO_ROOT, doc!)) && !existsSync(join(dirname(file), doc!))) missing.push(`${name}: ${doc}`);
    }
  }
  assert.ok(cited > 100, `citations were found (${cited})`);
  assert.deepEqual(missing, []);
});
