/**
 * Test harness: a real Presend server on 127.0.0.1:0 over the backend asked for (a temp SQLite
 * file by default, or a fresh PostgreSQL database of its own, dropped on close), accounts and
 * keys made through the store, and a small fetch wrapper.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config.js';
import type { PresendConfig } from '../../src/config.js';
import { startServer } from '../../src/processes/serve.js';
import type { RunningServer, ServerOptions } from '../../src/processes/serve.js';
import { openBackend } from '../../src/store/open-backend.js';
import { generateApiKey } from '../../src/service/keys/key-format.js';
import type { Engines } from '../../src/service/engines/engines.js';
import type { Backend } from '../../src/store/backend.js';
import { testEngines } from './engines.js';
import { assertMatches } from './schema-check.js';
import { after, before } from 'node:test';
import { countRows, openDatabase } from '../backends.js';
import type { BackendChoice, BackendName } from '../backends.js';
import { BatchRequest, ErrorBody, ResultsPage, VerifyResult } from '../../src/api/schemas.js';
import type { TSchema } from '@sinclair/typebox';
import { until } from '../until.js';

/** The schema a response of the interface must match, by route and status (docs/interface-spec.md §4, §7). */
function schemaFor(method: string, path: string, status: number): TSchema | null {
  if (!path.startsWith('/v1/')) return status >= 400 ? ErrorBody : null;
  if (status >= 400) return ErrorBody;
  const route = path.split('?')[0] ?? '';
  if (method === 'POST' && route === '/v1/verify') return VerifyResult;
  if (method === 'POST' && route === '/v1/requests') return BatchRequest;
  if (method === 'GET' && /^\/v1\/requests\/[^/]+\/results$/.test(route)) return ResultsPage;
  if (method === 'GET' && /^\/v1\/requests\/[^/]+$/.test(route)) return BatchRequest;
  return null;
}

export interface Harness {
  server: RunningServer;
  backend: Backend;
  url: string;
  dir: string;
  config: PresendConfig;
  newAccount(credits: number, name?: string): Promise<{ accountId: string; live: string; test: string }>;
  call(method: string, path: string, init?: { key?: string | null; bearer?: string; body?: unknown; rawBody?: string; headers?: Record<string, string>; idem?: string }): Promise<{ status: number; headers: Headers; body: any }>; // eslint-disable-line @typescript-eslint/no-explicit-any
  close(): Promise<void>;
}

let counter = 0;

export interface HarnessOptions {
  /** SQLite (default) or PostgreSQL (a fresh database, dropped on close); ignored when env names a database. */
  backend?: BackendName;
  env?: Record<string, string>;
  engines?: Engines;
  server?: Partial<ServerOptions>;
}

export async function startHarness(opts: HarnessOptions = {}): Promise<Harness> {
  const dir = mkdtempSync(join(tmpdir(), 'presend-test-'));
  // A database named in env (the adversarial suites' own) is used as it is, and left to its owner.
  const given = opts.env?.PRESEND_DATABASE_URL;
  const database = given ? { url: given, drop: async () => undefined } : await openDatabase(opts.backend ?? 'SQLite', dir);
  const config = loadConfig({
    PRESEND_DATABASE_URL: database.url,
    PRESEND_HOST: '127.0.0.1',
    PRESEND_PORT: '0',
    PRESEND_RATE_LIMIT_PER_SECOND: '1000',
    PRESEND_RATE_LIMIT_BURST: '1000',
    ...opts.env,
  });
  let backend: Backend;
  let server: RunningServer;
  try {
    backend = await openBackend(config.databaseUrl, { config });
    server = await startServer({
      config,
      backend,
      engines: opts.engines ?? (await testEngines(config)),
      logLevel: false,
      worker: { pollMs: 50 },
      ...opts.server,
    });
  } catch (err) {
    await database.drop();
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  const h: Harness = {
    server,
    backend,
    url: server.url,
    dir,
    config,
    async newAccount(credits, name) {
      const account = await backend.accounts.createAccount({ name: name ?? `acct-${process.pid}-${++counter}`, credits, now: new Date() });
      if (!account) throw new Error('account name taken');
      const live = generateApiKey('live');
      const test = generateApiKey('test');
      for (const k of [live, test]) await backend.keyManagement.createKey({ label: null, actor: { name: 'test setup' }, accountId: account.id, hash: k.hash, displayPrefix: k.displayPrefix, mode: k.mode, now: new Date() });
      return { accountId: account.id, live: live.key, test: test.key };
    },
    async call(method, path, init = {}) {
      const headers: Record<string, string> = { ...init.headers };
      if (init.key) headers['x-api-key'] = init.key;
      if (init.bearer) headers.authorization = `Bearer ${init.bearer}`;
      if (init.idem) headers['idempotency-key'] = init.idem;
      let body: string | undefined = init.rawBody;
      if (init.body !== undefined) {
        body = JSON.stringify(init.body);
        headers['content-type'] ??= 'application/json';
      }
      const res = await fetch(`${server.url}${path}`, { method, headers, body });
      const text = await res.text();
      let parsed: unknown = text;
      try {
        parsed = JSON.parse(text);
      } catch {
        /* not JSON: keep the text */
      }
      // Every response carries X-Request-Id, and every body of the interface matches its schema.
      if (!res.headers.get('x-request-id')) throw new Error(`${method} ${path}: no X-Request-Id`);
      const schema = schemaFor(method, path, res.status);
      if (schema) assertMatches(schema, parsed);
      return { status: res.status, headers: res.headers, body: parsed };
    },
    async close() {
      await server.close();
      await database.drop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return h;
}

let idem = 0;
/**
 * Environment giving both of a key's buckets — the work routes' and the reads' (GET) — the same
 * limits, for tests that must meet 429s whichever route they call.
 */
export function sameRateLimits(perSecond: number, burst: number): Record<string, string> {
  return {
    PRESEND_RATE_LIMIT_PER_SECOND: String(perSecond),
    PRESEND_RATE_LIMIT_BURST: String(burst),
    PRESEND_RESULTS_RATE_LIMIT_PER_SECOND: String(perSecond),
    PRESEND_RESULTS_RATE_LIMIT_BURST: String(burst),
  };
}

export const newIdem = (): string => `idem-${process.pid}-${Date.now()}-${++idem}`;

/** Polls the status route until the request is finalized (or failed). */
export async function waitFinal(h: Harness, key: string, id: string, timeoutMs = 60_000): Promise<any> { // eslint-disable-line @typescript-eslint/no-explicit-any
  let counters: unknown = null;
  return until(() => `request ${id} final; its counters: ${JSON.stringify(counters)}`, async () => {
    const r = await h.call('GET', `/v1/requests/${id}`, { key });
    if (r.status !== 200) throw new Error(`status ${r.status}`);
    counters = r.body.counters;
    return r.body.request.state === 'completed' || r.body.request.state === 'failed' ? r.body : null;
  }, timeoutMs, 50);
}

/** Every result item of a request, page after page of 200 through the cursor. */
export async function allResultItems<T = { email: string }>(h: Harness, key: string, id: string): Promise<T[]> {
  const items: T[] = [];
  let cursor: string | null = null;
  for (;;) {
    const page = await h.call('GET', `/v1/requests/${id}/results?limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { key });
    if (page.status !== 200) throw new Error(`results page: status ${page.status}`);
    items.push(...(page.body.results as T[]));
    cursor = page.body.nextCursor;
    if (!cursor) return items;
  }
}

/** A harness of one describe block, on one backend; `skip` says why when the backend cannot be used here. */
export interface BackendHarness {
  h: Harness;
  skip: string | null;
}

/**
 * A harness on `backend` started before the block's tests (hooks registered here, so call it first
 * inside `describe`), and closed after them.
 */
export function harnessOn(backend: BackendChoice, options: HarnessOptions = {}): BackendHarness {
  const state = { skip: backend.skip || null } as BackendHarness;
  before(async () => {
    if (!state.skip) state.h = await startHarness({ ...options, backend: backend.name });
  });
  after(async () => state.h?.close());
  return state;
}

/** The batch requests of an account, counted in the harness's store itself. */
export function countRequests(h: Harness, accountId: string): Promise<number> {
  return countRows(h.config.databaseUrl, 'SELECT count(*) AS n FROM requests WHERE account_id = ?', [accountId]);
}
