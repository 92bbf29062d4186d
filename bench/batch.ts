/**
 * Benchmark 4: batches on the sandbox engine. Each round creates a 10,000-address batch
 * (POST /v1/requests, timed alone), polls it until finalized (end to end), then exports all
 * its results with the SDK's cursor export (limit 200). The server's peak RSS is sampled
 * from /proc throughout.
 */
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createSandboxEngine } from '../src/core/index.js';
import { PresendClient } from '../src/client/index.js';
import { table, targetRow, type Section } from './section.js';
import { accountWithKey, currentRssMb, freePort, presendRunner, sampleRss, serviceEnv, startPresend, waitReady } from './service-process.js';
import { fmt, median, processCpuMs } from './stats.js';

const ROUNDS = 5;
const SIZE = 10_000;
/** Status polls: ~2 % of a 5 s run; each poll counts the request's items in the store. */
const POLL_MS = 100;
const TARGETS = { createMs: 300, endToEndMs: 10_000, exportMs: 1_500, rssMb: 250 };

/** A sandbox mix (docs/design.md §3) without `greylisted@` (rechecked minutes later) and `slow@`. */
const KINDS = ['undeliverable', 'catchall', 'full', 'disposable', 'role', 'transient', 'unknown', 'spamtrap'];

export function sandboxBatch(round: number, size = SIZE): string[] {
  return Array.from({ length: size }, (_, i) => {
    const kind = i % 5 === 0 ? KINDS[(i / 5) % KINDS.length] : `person${i}.r${round}`;
    return `${kind}+${i}.r${round}@example${i % 97}.com`;
  });
}

const BARE = fileURLToPath(new URL('./bare-server.ts', import.meta.url));
const PAGES = 50;

interface Baselines {
  /** The same 10,000-address body POSTed to a bare Fastify route. */
  createMs: number;
  /** 50 sequential GETs of a real 200-item results page from a bare Fastify route. */
  exportMs: number;
  /** The sandbox engine alone, in this process, on the same 10,000 addresses. */
  engineMs: number;
}

async function timed(work: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await work();
  return performance.now() - started;
}

/** Each baseline ROUNDS times, medians. `page` is a real results page of the service. */
async function baselines(bareUrl: string, page: string): Promise<Baselines> {
  const post = (emails: string[]): Promise<unknown> =>
    fetch(`${bareUrl}/v1/requests`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ emails }) }).then((r) => r.json());
  await fetch(`${bareUrl}/page`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: page });
  const create: number[] = [];
  const exported: number[] = [];
  const engine: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const emails = sandboxBatch(100 + round);
    create.push(await timed(() => post(emails)));
    exported.push(
      await timed(async () => {
        for (let p = 0; p < PAGES; p++) await (await fetch(`${bareUrl}/page`)).json();
      }),
    );
    const sandbox = createSandboxEngine();
    engine.push(await timed(() => sandbox.verifyMany(emails, () => undefined)));
    await sandbox.close();
  }
  return { createMs: median(create), exportMs: median(exported), engineMs: median(engine) };
}

interface Round {
  /** Server CPU (user + system) for the whole round: create, run, polls and export. */
  cpuMs: number;
  createMs: number;
  endToEndMs: number;
  exportMs: number;
  exported: number;
}

export async function batchBench(): Promise<Section> {
  const port = await freePort();
  const barePort = await freePort();
  const bare = spawn(process.execPath, ['--import', 'tsx', BARE, String(barePort)], { stdio: 'ignore' });
  let base: Baselines = { createMs: Number.NaN, exportMs: Number.NaN, engineMs: Number.NaN };
  const service = serviceEnv(port);
  const key = await accountWithKey(service.env, 'bench-batch', true);
  const server = await startPresend(['serve'], service.env, join(service.dir, 'serve.log'));
  const baseUrl = `http://127.0.0.1:${port}`;
  const rounds: Round[] = [];
  let lastId = '';
  let peakMb = Number.NaN;
  let idleMb = Number.NaN;
  try {
    await waitReady(`${baseUrl}/healthz`, server.child);
    idleMb = await currentRssMb(server.pid);
    const rss = sampleRss(server.pid);
    const client = new PresendClient({ baseUrl, apiKey: key });
    for (let round = 0; round < ROUNDS; round++) {
      const emails = sandboxBatch(round);
      const cpuBefore = await processCpuMs(server.pid);
      const t0 = performance.now();
      const created = await client.createRequest({ emails });
      const createMs = performance.now() - t0;
      const id = created.request.id;
      lastId = id;
      for (;;) {
        const status = await client.getRequest(id);
        if (status.request.finalized || status.request.state === 'failed') break;
        await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      }
      const endToEndMs = performance.now() - t0;
      const t1 = performance.now();
      let exported = 0;
      for await (const item of client.exportResults(id, { limit: 200 })) if (item.email) exported++;
      const exportMs = performance.now() - t1;
      const cpuMs = (await processCpuMs(server.pid)) - cpuBefore;
      rounds.push({ cpuMs, createMs, endToEndMs, exportMs, exported });
      process.stdout.write(`  batch round ${round + 1}: create ${fmt(createMs)} ms, finalized ${fmt(endToEndMs)} ms, export ${fmt(exportMs)} ms (${exported} items), server CPU ${fmt(cpuMs)} ms\n`);
    }
    peakMb = await rss.stop();
    // Baselines in the same run, once the service is idle: a real page of its results to replay.
    const last = rounds.length > 0 ? await client.getRequest(lastId) : null;
    const page = last ? await (await fetch(`${baseUrl}/v1/requests/${lastId}/results?limit=200`, { headers: { 'x-api-key': key } })).text() : '{}';
    await waitReady(`http://127.0.0.1:${barePort}/healthz`, bare);
    base = await baselines(`http://127.0.0.1:${barePort}`, page);
  } finally {
    bare.kill('SIGTERM');
    await server.stop();
    rmSync(service.dir, { recursive: true, force: true });
  }
  const createMs = median(rounds.map((r) => r.createMs));
  const endToEndMs = median(rounds.map((r) => r.endToEndMs));
  const exportMs = median(rounds.map((r) => r.exportMs));
  const runs = (pick: (r: Round) => number): string => rounds.map((r) => fmt(pick(r))).join(', ');
  const body = [
    `\`presend serve\` with its embedded worker (SQLite store in a temp dir, ${(await presendRunner()).label}), a \`ps_test.\` sandbox key, ${ROUNDS} rounds of ${fmt(SIZE)} unique addresses ` +
      '(4 in 5 plain mailboxes, 1 in 5 spread over the sandbox outcomes undeliverable, catch-all, full, disposable, role, transient, unknown, spamtrap — no `greylisted@`, which is rechecked minutes later). ' +
      `Per round: \`POST /v1/requests\` timed alone; then \`GET /v1/requests/{id}\` every ${POLL_MS} ms until finalized (end to end, from the POST); then a full cursor export with the SDK (\`exportResults\`, limit 200). ` +
      'Peak RSS of the server process: VmRSS sampled every 50 ms and VmHWM at the end, over all rounds. ' +
      `Baselines (${ROUNDS} rounds each, medians, after the service rounds): a bare Fastify server in its own process (body parsing only; a canned page) and the sandbox engine in this process.`,
    '',
    table(
      ['figure', 'median', 'runs', 'target', 'baseline in the same run', 'ratio'],
      [
        ['`POST /v1/requests`, 10,000 addresses', `${fmt(createMs)} ms`, runs((r) => r.createMs), `≤ ${TARGETS.createMs} ms`, `same body to a bare Fastify route: ${fmt(base.createMs)} ms`, `${fmt(createMs / base.createMs, 1)}×`],
        ['batch finalized, end to end', `${fmt(endToEndMs)} ms`, runs((r) => r.endToEndMs), `≤ ${fmt(TARGETS.endToEndMs)} ms`, `sandbox engine alone on the same addresses: ${fmt(base.engineMs)} ms`, `${fmt(endToEndMs / base.engineMs, 1)}×`],
        ['full cursor export (50 pages of 200)', `${fmt(exportMs)} ms`, runs((r) => r.exportMs), `≤ ${fmt(TARGETS.exportMs)} ms`, `50 GETs of one real page from a bare Fastify route: ${fmt(base.exportMs)} ms`, `${fmt(exportMs / base.exportMs, 1)}×`],
        ['server CPU per round (create, run, polls, export)', `${fmt(median(rounds.map((r) => r.cpuMs)))} ms`, runs((r) => r.cpuMs), '—', '', ''],
        ['results exported per round', fmt(median(rounds.map((r) => r.exported))), runs((r) => r.exported), fmt(SIZE), '', ''],
        ['peak server RSS', `${fmt(peakMb)} MB`, '', `≤ ${TARGETS.rssMb} MB`, `the same server idle after start-up: ${fmt(idleMb)} MB`, `${fmt(peakMb / idleMb, 1)}×`],
      ],
    ),
  ].join('\n');
  return {
    id: 'batch',
    title: '4. Batches',
    body,
    summary: [
      targetRow('batch: POST /v1/requests, 10,000 addresses', `${fmt(createMs)} ms`, createMs, 'at most', TARGETS.createMs, ' ms'),
      targetRow('batch: 10,000 finalized end to end', `${fmt(endToEndMs)} ms`, endToEndMs, 'at most', TARGETS.endToEndMs, ' ms'),
      targetRow('batch: full cursor export of 10,000', `${fmt(exportMs)} ms`, exportMs, 'at most', TARGETS.exportMs, ' ms'),
      { figure: 'batch: server CPU per 10,000-address round', measured: `${fmt(median(rounds.map((r) => r.cpuMs)))} ms`, target: '—', met: null },
      targetRow('batch: peak server RSS', `${fmt(peakMb)} MB (idle after start-up: ${fmt(idleMb)} MB)`, peakMb, 'at most', TARGETS.rssMb, ' MB'),
    ],
  };
}
