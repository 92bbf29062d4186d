/**
 * How the tests start the `presend` CLI as a process, in one place. The built CLI
 * (`node dist/cli/main.js`, as deployed) when dist is newer than every source file — `npm ci`
 * builds it, so CI and a fresh checkout test what users run — and otherwise the sources through
 * tsx, so an edit is tested without a build. Why not always tsx: its loader roughly doubles a
 * process's start (3.5 s against 1.8 s per `presend --version`, measured under load), and the
 * suite starts well over a hundred processes.
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = fileURLToPath(new URL('../', import.meta.url));
const SOURCE_ENTRY = join(REPO_ROOT, 'src/cli/main.ts');
const BUILT_ENTRY = join(REPO_ROOT, 'dist/cli/main.js');

function newestSourceChange(): number {
  const src = join(REPO_ROOT, 'src');
  let newest = 0;
  for (const name of readdirSync(src, { recursive: true, encoding: 'utf8' })) {
    if (name.endsWith('.ts')) newest = Math.max(newest, statSync(join(src, name)).mtimeMs);
  }
  return newest;
}

function builtIsCurrent(): boolean {
  try {
    return statSync(BUILT_ENTRY).mtimeMs > newestSourceChange();
  } catch {
    return false; // no build
  }
}

/** Node arguments that run `presend`; append the command's own. */
export const CLI_NODE_ARGS: readonly string[] = builtIsCurrent() ? [BUILT_ENTRY] : ['--import', 'tsx', SOURCE_ENTRY];
