/**
 * The stores the abuse tests run on: SQLite always, PostgreSQL on a fresh database when it is
 * reachable (test/scale/fresh-database.ts skips it otherwise, or fails when
 * PRESEND_TEST_POSTGRES asks for it). Row locks and shared buckets are where races live.
 */
import { join } from 'node:path';
import { after, before } from 'node:test';
import Database from 'better-sqlite3';
import pg from 'pg';
import { startHarness } from '../api/harness.js';
import type { Harness, HarnessOptions } from '../api/harness.js';
import { freshDatabase } from '../scale/fresh-database.js';
import type { FreshDatabase } from '../scale/fresh-database.js';

export interface OpenBackend {
  /** Environment for startHarness. */
  env: Record<string, string>;
  countRequests(h: Harness, accountId: string): Promise<number>;
  close(): Promise<void>;
}

export interface Backend {
  name: string;
  /** The harness environment and a way to count requests in the store, or why the backend is skipped. */
  open(): Promise<OpenBackend | { skip: string }>;
}

export const sqlite: Backend = {
  name: 'SQLite',
  async open() {
    let db: Database.Database | null = null;
    return {
      env: {},
      async countRequests(h, accountId) {
        db ??= new Database(join(h.dir, 'presend.db'), { readonly: true });
        return (db.prepare('SELECT count(*) AS n FROM requests WHERE account_id = ?').get(accountId) as { n: number }).n;
      },
      async close() {
        db?.close();
      },
    };
  },
};

export const postgres: Backend = {
  name: 'PostgreSQL',
  async open() {
    const fresh = await freshDatabase();
    if (fresh.kind === 'skip') return { skip: fresh.reason };
    const db: FreshDatabase = fresh.db;
    return {
      env: { PRESEND_DATABASE_URL: db.url },
      async countRequests(_h, accountId) {
        const client = new pg.Client({ connectionString: db.url });
        await client.connect();
        try {
          const r = await client.query<{ n: string }>('SELECT count(*) AS n FROM requests WHERE account_id = $1', [accountId]);
          return Number(r.rows[0]?.n ?? 0);
        } finally {
          await client.end();
        }
      },
      close: () => db.drop(),
    };
  },
};

export const BACKENDS: readonly Backend[] = [sqlite, postgres];

/** A harness of one describe block, on one backend; `skip` says why when the backend cannot be used. */
export interface BackendHarness {
  h: Harness;
  opened: OpenBackend;
  skip: string | null;
}

/**
 * Opens `backend` and a harness on it before the block's tests (hooks registered here, so call it
 * first inside `describe`), and closes both after them.
 */
export function harnessOn(backend: Backend, options: (env: Record<string, string>) => HarnessOptions = (env) => ({ env })): BackendHarness {
  const state = { skip: null } as BackendHarness;
  before(async () => {
    const outcome = await backend.open();
    if ('skip' in outcome) {
      state.skip = outcome.skip;
      return;
    }
    state.opened = outcome;
    state.h = await startHarness(options(outcome.env));
  });
  after(async () => {
    await state.h?.close();
    await state.opened?.close();
  });
  return state;
}
