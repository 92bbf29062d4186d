/**
 * Serves every role: the schema. The numbered migrations of each dialect (src/store/migrations/{sqlite,postgres}/NNN_name.sql),
 * read from the sources or the build. Dialect-neutral: the PostgreSQL backend lists its
 * migrations without loading SQLite's native module.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export type Dialect = 'sqlite' | 'postgres';

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/** Works from the sources (src/store) and from the build (dist/store, with src/store/migrations shipped beside it). */
function migrationsDir(dialect: Dialect): string {
  const candidates = [new URL(`./migrations/${dialect}/`, import.meta.url), new URL(`../../src/store/migrations/${dialect}/`, import.meta.url)];
  for (const candidate of candidates) {
    const dir = fileURLToPath(candidate);
    if (existsSync(dir)) return dir;
  }
  throw new Error(`migrations for ${dialect} not found next to ${import.meta.url}`);
}

/** In version order. */
export function listMigrations(dialect: Dialect): Migration[] {
  const dir = migrationsDir(dialect);
  return readdirSync(dir)
    .filter((f) => /^\d+_.+\.sql$/.test(f))
    .sort()
    .map((f) => ({ version: Number(f.split('_')[0]), name: f, sql: readFileSync(join(dir, f), 'utf8') }));
}
