/**
 * A fresh PostgreSQL database per test file, so runs never collide: `CREATE DATABASE
 * presend_test_<random>` on the server named by PRESEND_TEST_POSTGRES (default
 * postgres://postgres@127.0.0.1:5432/test), dropped at the end.
 *
 * When PostgreSQL is unreachable and PRESEND_TEST_POSTGRES was not set, the tests are skipped
 * with a message; when it was set explicitly (CI), unreachable is a failure.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';

export const DEFAULT_TEST_POSTGRES = 'postgres://postgres@127.0.0.1:5432/test';

export interface FreshDatabase {
  url: string;
  name: string;
  drop(): Promise<void>;
}

export type FreshDatabaseOutcome = { kind: 'ready'; db: FreshDatabase } | { kind: 'skip'; reason: string };

function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

async function admin<T>(url: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3_000 });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

export async function freshDatabase(): Promise<FreshDatabaseOutcome> {
  const explicit = process.env.PRESEND_TEST_POSTGRES;
  const base = explicit || DEFAULT_TEST_POSTGRES;
  const name = `presend_test_${randomBytes(6).toString('hex')}`;
  try {
    await admin(base, (c) => c.query(`CREATE DATABASE ${name}`));
  } catch (err) {
    const reason = `PostgreSQL not reachable at ${base} (${String((err as Error).message ?? err)})`;
    if (explicit) throw new Error(`${reason}; PRESEND_TEST_POSTGRES is set, so this is a failure`, { cause: err });
    return { kind: 'skip', reason: `${reason}; set PRESEND_TEST_POSTGRES to run these tests` };
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
