/**
 * The stores a suite runs on, one module for every suite (docs/design.md §6: "the same store
 * contract tests run against SQLite and PostgreSQL"): SQLite always; PostgreSQL on a fresh
 * database of its own, so runs never collide — `CREATE DATABASE presend_test_<random>` on the
 * server named by PRESEND_TEST_POSTGRES (default postgres://postgres@127.0.0.1:5432/test),
 * dropped at the end.
 *
 * When PostgreSQL is unreachable and PRESEND_TEST_POSTGRES was not set, its tests are skipped with
 * the reason; when it was set explicitly (CI), unreachable is a failure.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe } from 'node:test';
import pg from 'pg';
import { openBackend } from '../src/store/open-backend.js';
import type { BackendOptions } from '../src/store/open-backend.js';
import type { Backend } from '../src/store/backend.js';

export const DEFAULT_TEST_POSTGRES = 'postgres://postgres@127.0.0.1:5432/test';

export type BackendName = 'SQLite' | 'PostgreSQL';

/** A database of one test's own: its URL, and how to remove it. */
export interface TestDatabase {
  url: string;
  drop(): Promise<void>;
}

export interface FreshDatabase extends TestDatabase {
  name: string;
}

export type FreshDatabaseOutcome = { kind: 'ready'; db: FreshDatabase } | { kind: 'skip'; reason: string };

function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

/** One admin connection; the timeout is generous because a loaded CI machine (two test files, Chromium, the real MTAs) once took over 3 s to connect. */
async function admin<T>(url: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 15_000 });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** The server the tests use, and whether it was asked for explicitly. */
function testServer(): { base: string; explicit: boolean } {
  const explicit = process.env.PRESEND_TEST_POSTGRES;
  return { base: explicit || DEFAULT_TEST_POSTGRES, explicit: Boolean(explicit) };
}

/** Why PostgreSQL is skipped, after `err` on the server; a failure instead when PRESEND_TEST_POSTGRES asked for it. */
function unreachable(base: string, explicit: boolean, err: unknown): { kind: 'skip'; reason: string } {
  const reason = `PostgreSQL not reachable at ${base} (${String((err as Error).message ?? err)})`;
  if (explicit) throw new Error(`${reason}; PRESEND_TEST_POSTGRES is set, so this is a failure`, { cause: err });
  return { kind: 'skip', reason: `${reason}; set PRESEND_TEST_POSTGRES to run these tests` };
}

/** A fresh PostgreSQL database, or why PostgreSQL is skipped here (throws when PRESEND_TEST_POSTGRES asks for it). */
export async function freshDatabase(): Promise<FreshDatabaseOutcome> {
  const { base, explicit } = testServer();
  const name = `presend_test_${randomBytes(6).toString('hex')}`;
  try {
    await admin(base, (c) => c.query(`CREATE DATABASE ${name}`));
  } catch (err) {
    return unreachable(base, explicit, err);
  }
  return {
    kind: 'ready',
    db: {
      url: withDatabase(base, name),
      name,
      drop: () => admin(base, (c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(() => undefined),
    },
  };
}

/** Whether PostgreSQL can be used here, found out once per test file by a connection (no database made). */
async function postgresSkipReason(): Promise<string | false> {
  const { base, explicit } = testServer();
  try {
    await admin(base, (c) => c.query('SELECT 1'));
    return false;
  } catch (err) {
    return unreachable(base, explicit, err).reason;
  }
}

export interface BackendChoice {
  name: BackendName;
  /** Why this backend's tests are skipped here, or false. */
  skip: string | false;
}

export const BACKENDS: readonly BackendChoice[] = [
  { name: 'SQLite', skip: false },
  { name: 'PostgreSQL', skip: await postgresSkipReason() },
];

/** The same cases, once per backend: `describe('TITLE (SQLite)')`, `describe('TITLE (PostgreSQL)')`, skipped with the reason where it cannot run. */
export function describeOnEveryBackend(title: string, cases: (backend: BackendName) => void, options: { timeout?: number } = {}): void {
  for (const { name, skip } of BACKENDS) describe(`${title} (${name})`, { ...options, skip }, () => cases(name));
}

/**
 * A database of `backend` for one test: a SQLite file (in `dir`, or in a temporary folder removed
 * by `drop`), or a fresh PostgreSQL database (a failure when PostgreSQL cannot be reached: check
 * BACKENDS' `skip` first).
 */
export async function openDatabase(backend: BackendName, dir?: string): Promise<TestDatabase> {
  if (backend === 'SQLite') {
    const own = dir ?? mkdtempSync(join(tmpdir(), 'presend-test-'));
    return { url: `sqlite:${join(own, 'presend.db')}`, drop: async () => (dir ? undefined : rmSync(own, { recursive: true, force: true })) };
  }
  const fresh = await freshDatabase();
  if (fresh.kind === 'skip') throw new Error(`PostgreSQL asked for but ${fresh.reason}`);
  return fresh.db;
}

/** A store opened on a database of `backend` of its own; `close` closes it and removes the database. */
export async function openStore(backend: BackendName, options?: BackendOptions): Promise<{ backend: Backend; url: string; close(): Promise<void> }> {
  const db = await openDatabase(backend);
  const store = await openBackend(db.url, options);
  return {
    backend: store,
    url: db.url,
    async close() {
      await store.close();
      await db.drop();
    },
  };
}

/** A row count by SQL with `?` placeholders, on the store at `url` (numbered `$n` for PostgreSQL). */
export async function countRows(url: string, sql: string, params: readonly unknown[] = []): Promise<number> {
  if (url.startsWith('sqlite:')) {
    const { default: Database } = await import('better-sqlite3');
    const db = new Database(url.slice('sqlite:'.length), { readonly: true });
    try {
      return Number((db.prepare(sql).get(...params) as { n: number }).n);
    } finally {
      db.close();
    }
  }
  let i = 0;
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const r = await client.query<{ n: string }>(sql.replace(/\?/g, () => `$${++i}`), [...params]);
    return Number(r.rows[0]?.n ?? 0);
  } finally {
    await client.end();
  }
}
