/**
 * Benchmark 3: POST /v1/verify on a sandbox key (autocannon, programmatic) against a bare
 * Fastify route doing nothing, same connections and duration, rounds alternating. Both servers
 * run in child processes so the load generator does not share their event loop.
 */
import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawn } from 'node:child_process';
import autocannon from 'autocannon';
import { table, targetRow, type Section } from './section.js';
import { accountWithKey, freePort, presendRunner, serviceEnv, startPresend, waitReady } from './service-process.js';
import { fmt, median, processCpuMs } from './stats.js';

const ROUNDS = 3;
const DURATION_S = 10;
const CONNECTIONS = 10;
const TARGET_SHARE = 0.25;
const TARGET_P99_MS = 25;
const BARE = fileURLToPath(new URL('./bare-server.ts', import.meta.url));

export interface LoadFigures {
  rps: number;
  /** Requests answered in the run. */
  total: number;
  /** Server CPU (user + system) per request, µs: steadier than requests/s on a shared machine. */
  cpuUsPerRequest?: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
}

export async function load(url: string, headers: Record<string, string>, durationS = DURATION_S): Promise<LoadFigures> {
  let n = 0;
  const result = await autocannon({
    url,
    connections: CONNECTIONS,
    duration: durationS,
    requests: [
      {
        method: 'POST',
        path: '/v1/verify',
        headers: { 'content-type': 'application/json', ...headers },
        // Every request a new logical operation: its own Idempotency-Key and address.
        setupRequest: (request) => ({
          ...request,
          headers: { ...request.headers, 'idempotency-key': randomUUID() },
          body: JSON.stringify({ email: `bench.user${n++}@example.com` }),
        }),
      },
    ],
  });
  return { rps: result.requests.average, total: result.requests.total, p50: result.latency.p50, p99: result.latency.p99, non2xx: result.non2xx, errors: result.errors };
}

export async function apiBench(): Promise<Section> {
  const [servicePort, barePort] = [await freePort(), await freePort()];
  const service = serviceEnv(servicePort);
  const key = await accountWithKey(service.env, 'bench-api', true);
  const server = await startPresend(['serve'], service.env, join(service.dir, 'serve.log'));
  const bare = spawn(process.execPath, ['--import', 'tsx', BARE, String(barePort)], { stdio: 'ignore' });
  const presendRuns: LoadFigures[] = [];
  const bareRuns: LoadFigures[] = [];
  try {
    const presendUrl = `http://127.0.0.1:${servicePort}`;
    const bareUrl = `http://127.0.0.1:${barePort}`;
    await waitReady(`${presendUrl}/healthz`, server.child);
    await waitReady(`${bareUrl}/healthz`, bare);
    // Warm both (JIT, SQLite page cache) before measuring.
    await load(presendUrl, { 'x-api-key': key }, 2);
    await load(bareUrl, {}, 2);
    for (let round = 0; round < ROUNDS; round++) {
      bareRuns.push(await load(bareUrl, {}));
      const cpuBefore = await processCpuMs(server.pid);
      const run = await load(presendUrl, { 'x-api-key': key });
      presendRuns.push({ ...run, cpuUsPerRequest: ((await processCpuMs(server.pid)) - cpuBefore) * 1000 / run.total });
      process.stdout.write(`  api round ${round + 1}: presend ${fmt(run.rps)} req/s (${fmt(presendRuns.at(-1)?.cpuUsPerRequest ?? 0)} µs server CPU per request), bare ${fmt(bareRuns.at(-1)?.rps ?? 0)} req/s\n`);
    }
  } finally {
    await server.stop();
    bare.kill('SIGTERM');
    rmSync(service.dir, { recursive: true, force: true });
  }
  const rps = median(presendRuns.map((r) => r.rps));
  const bareRps = median(bareRuns.map((r) => r.rps));
  const p99 = median(presendRuns.map((r) => r.p99));
  const cpuUs = median(presendRuns.map((r) => r.cpuUsPerRequest ?? Number.NaN));
  const share = rps / bareRps;
  const row = (name: string, runs: LoadFigures[]): string[] => [
    name,
    `${fmt(median(runs.map((r) => r.rps)))} (${runs.map((r) => fmt(r.rps)).join(', ')})`,
    fmt(median(runs.map((r) => r.p50)), 1),
    fmt(median(runs.map((r) => r.p99)), 1),
    fmt(runs.reduce((s, r) => s + r.non2xx, 0)),
    fmt(runs.reduce((s, r) => s + r.errors, 0)),
  ];
  const body = [
    `autocannon, ${CONNECTIONS} connections, ${DURATION_S} s per run, ${ROUNDS} rounds alternating (bare first), after a 2 s warm-up of each; medians. ` +
      `\`presend serve\` (${(await presendRunner()).label}, SQLite store in a temp dir, default log level \`info\` to a file, rate limit raised to 1,000,000/s through ` +
      '`PRESEND_RATE_LIMIT_PER_SECOND`/`PRESEND_RATE_LIMIT_BURST`) with a `ps_test.` sandbox key; every request has its own `Idempotency-Key` and address. ' +
      'Baseline: a bare Fastify 5 `POST /v1/verify` route returning `{ ok: true }`, logger off, in its own process.',
    '',
    table(
      ['server', 'requests/s (runs)', 'p50 ms', 'p99 ms', 'non-2xx', 'errors'],
      [row('presend `POST /v1/verify` (sandbox)', presendRuns), row('bare Fastify route', bareRuns)],
    ),
    '',
    `Presend serves **${fmt(share * 100, 1)} %** of the bare route's requests per second (target ≥ ${TARGET_SHARE * 100} %), p99 **${fmt(p99, 1)} ms** (target ≤ ${TARGET_P99_MS} ms). ` +
      `The server spends **${fmt(cpuUs)} µs** of CPU per request (median of the runs: ${presendRuns.map((r) => fmt(r.cpuUsPerRequest ?? Number.NaN)).join(', ')}), a figure that moves less with the machine's load than requests/s.`,
  ].join('\n');
  return {
    id: 'api',
    title: '3. API',
    body,
    summary: [
      targetRow('API: share of the bare route\'s requests/s', `${fmt(share * 100, 1)} % (${fmt(rps)} vs ${fmt(bareRps)} req/s)`, share * 100, 'at least', TARGET_SHARE * 100, ' %', 1),
      targetRow('API: p99 latency', `${fmt(p99, 1)} ms`, p99, 'at most', TARGET_P99_MS, ' ms', 1),
      { figure: 'API: server CPU per request', measured: `${fmt(cpuUs)} µs`, target: '—', met: null },
    ],
  };
}
