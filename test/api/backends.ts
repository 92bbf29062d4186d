/**
 * The API suite runs on every backend (STYLE.md, after Hono: one suite, every implementation):
 * SQLite always; PostgreSQL on a fresh database per harness when it is reachable, skipped with
 * the reason otherwise, and a failure when PRESEND_TEST_POSTGRES asks for it
 * (test/scale/fresh-database.ts).
 */
import { describe } from 'node:test';
import { freshDatabase } from '../scale/fresh-database.js';

export type BackendName = 'SQLite' | 'PostgreSQL';

/** Whether PostgreSQL can be used here, found out once per test file. */
async function postgresSkipReason(): Promise<string | false> {
  const probe = await freshDatabase();
  if (probe.kind === 'skip') return probe.reason;
  await probe.db.drop();
  return false;
}

export const API_BACKENDS: ReadonlyArray<{ name: BackendName; skip: string | false }> = [
  { name: 'SQLite', skip: false },
  { name: 'PostgreSQL', skip: await postgresSkipReason() },
];

/** The same cases, once per backend: `describe('TITLE (SQLite)')`, `describe('TITLE (PostgreSQL)')`. */
export function describeOnEveryBackend(title: string, cases: (backend: BackendName) => void): void {
  for (const { name, skip } of API_BACKENDS) describe(`${title} (${name})`, { skip }, () => cases(name));
}
