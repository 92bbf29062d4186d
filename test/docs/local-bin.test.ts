/**
 * The docs run Presend's own `presend`: a bare `npx presend` outside the checkout would fetch
 * and run whatever registry package has that name, so every doc says `npx --no-install presend`.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { docFiles, readDoc } from './markdown.js';

/** The lines of a doc's code blocks (prose may warn against the bare form), with where they are. */
function codeLines(file: string): Array<{ where: string; line: string }> {
  let inBlock = false;
  return readDoc(file)
    .split('\n')
    .map((line, i) => ({ where: `${file}:${i + 1}`, line }))
    .filter(({ line }) => {
      if (line.trimStart().startsWith('```')) {
        inBlock = !inBlock;
        return false;
      }
      return inBlock;
    });
}

test('no doc tells anyone to run a bare `npx presend`', () => {
  const bare = docFiles().flatMap((file) => codeLines(file).filter(({ line }) => /\bnpx\s+(?:-y\s+|--yes\s+)?presend\b/.test(line)));
  assert.deepEqual(bare, []);
  assert.match(readDoc('README.md'), /npx --no-install presend users create/, 'the quick start uses the local bin');
});
