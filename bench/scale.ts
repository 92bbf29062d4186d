/**
 * Benchmark 5: scale-out on PostgreSQL. The batch of benchmark 1 (10,000 mail-world
 * addresses, live engine) through `presend serve --no-worker` and one, then two,
 * `presend worker` processes, alternating; each run on a fresh database (so no run inherits
 * another's cached domain facts) and a reset world (greylisting).
 */
import { rmSync, mkdtempSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { PresendClient } from '../src/client/index.js';
import { table, targetRow, type Section } from './section.js';
import { accountWithKey, freePort, sampleRss, startPresend, waitReady, type PresendProcess, presendRunner } from './service-process.js';
import { fmt, median, ownCpuMs, pct, processCpuMs } from './stats.js';
import { BENCH_WORLD, benchAddresses } from './world-options.js';
import { startWorldChild, type WorldChild, type WorldStats } from './world-child.js';

export const POSTGRES_URL = process.env.PRESEND_BENCH_POSTGRES ?? 'postgres://postgres@127.0.0.1:5432';
/** Rounds of (1 worker, 2 workers); PRESEND_BENCH_SCALE_ROUNDS overrides (e.g. 1 while profiling). */
const ROUNDS = Number(process.env.PRESEND_BENCH_SCALE_ROUNDS ?? 2);
const TARGET = 1.7;
/** Greylisted addresses come back after this (the world lets them through after 500 ms). */
const RECHECK_DELAY_MS = 1_000;
const RUN_TIMEOUT_MS = 180_000;
/** Status polls: often enough for a ~1 % resolution, rarely enough not to load the store (each poll counts the items). */
const POLL_MS = 250;

interface ScaleRun {
  workers: number;
  ms: number;
  /** When 50 %, 90 % and 99 % of the addresses had a final result (from the status polls). */
  progress: [number, number, number];
  accuracy: number;
  world: WorldStats;
  peakWorkerRssMb: number;
  /** CPU used during the run (ms, user + system) by each kind of process. */
  cpu: CpuSplit;
}

interface CpuSplit {
  api: number;
  workers: number[];
  /** The backends serving this run's database (their process title names it). */
  postgresBackends: number;
  /** walwriter, checkpointer, background writer… (shared with anything else on the server). */
  postgresAux: number;
  world: number;
  bench: number;
  /** Busy CPU of the whole machine (all cores) and the wall time, for how saturated it was. */
  machineBusy: number;
  /** The same from the start to the 99 % mark (the first pass, before the greylisting recheck tail), and that time. */
  firstPassBusy: number;
  firstPassMs: number;
}

/** Busy CPU of the whole machine so far (ms summed over cores), from /proc/stat. */
async function machineBusyMs(): Promise<number> {
  const line = (await readFile('/proc/stat', 'utf8')).split('\n')[0] ?? '';
  const [, user, nice, system, , , irq, softirq, steal] = line.trim().split(/\s+/).map(Number);
  return (((user ?? 0) + (nice ?? 0) + (system ?? 0) + (irq ?? 0) + (softirq ?? 0) + (steal ?? 0)) * 1000) / 100;
}

/** PostgreSQL server processes by kind: backends of `database`, and the auxiliary ones. */
async function postgresProcesses(database: string): Promise<{ backends: number[]; aux: number[] }> {
  const backends: number[] = [];
  const aux: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const title = await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '');
    if (!title.startsWith('postgres: ')) continue;
    if (title.includes(` ${database} `)) backends.push(Number(entry));
    else if (/postgres: (\S+ )?(walwriter|checkpointer|background writer|autovacuum launcher|logical replication launcher|stats collector|walsender)/.test(title)) aux.push(Number(entry));
  }
  return { backends, aux };
}

/**
 * Samples the CPU of this run's PostgreSQL backends while it runs (a backend that ends before
 * the run does keeps its last reading) and of the auxiliary PostgreSQL processes.
 */
function samplePostgresCpu(database: string, everyMs = 1_000): { stop(): Promise<{ backends: number; aux: number }> } {
  const start = new Map<number, number>();
  const last = new Map<number, number>();
  const auxStart = new Map<number, number>();
  const auxLast = new Map<number, number>();
  let first = true;
  const sample = async (): Promise<void> => {
    const { backends, aux } = await postgresProcesses(database);
    for (const [pids, s, l] of [
      [backends, start, last],
      [aux, auxStart, auxLast],
    ] as const) {
      for (const pid of pids) {
        const ms = await processCpuMs(pid);
        if (Number.isNaN(ms)) continue;
        // A backend that appears mid-run started mid-run: all its CPU belongs to the run.
        if (!s.has(pid)) s.set(pid, first ? ms : 0);
        l.set(pid, ms);
      }
    }
    first = false;
  };
  let running = sample();
  const timer = setInterval(() => {
    running = running.then(sample, sample);
  }, everyMs);
  const sum = (s: Map<number, number>, l: Map<number, number>) => [...l].reduce((t, [pid, ms]) => t + ms - (s.get(pid) ?? ms), 0);
  return {
    async stop() {
      clearInterval(timer);
      await running.catch(() => undefined);
      await sample();
      return { backends: sum(start, last), aux: sum(auxStart, auxLast) };
    },
  };
}

async function admin(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: `${POSTGRES_URL}/postgres` });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

async function oneRun(workers: number, world: WorldChild, round: number): Promise<ScaleRun> {
  const bench = benchAddresses({ ...BENCH_WORLD, truth: { greylisted: 'final' } });
  const database = `presend_bench_${process.pid}_${workers}w_${round}`;
  await admin(`DROP DATABASE IF EXISTS ${database}`);
  await admin(`CREATE DATABASE ${database}`);
  const dir = mkdtempSync(join(tmpdir(), 'presend-scale-'));
  const port = await freePort();
  const env = {
    ...world.env,
    PRESEND_DATABASE_URL: `${POSTGRES_URL}/${database}`,
    PRESEND_HOST: '127.0.0.1',
    PRESEND_PORT: String(port),
    PRESEND_RATE_LIMIT_PER_SECOND: '1000000',
    PRESEND_RATE_LIMIT_BURST: '1000000',
    PRESEND_RECHECK_DELAY_MS: String(RECHECK_DELAY_MS),
  };
  const processes: PresendProcess[] = [];
  try {
    await world.reset();
    const server = await startPresend(['serve', '--no-worker'], env, join(dir, 'serve.log'));
    processes.push(server);
    const baseUrl = `http://127.0.0.1:${port}`;
    await waitReady(`${baseUrl}/healthz`, server.child); // migrations are applied by now
    const key = await accountWithKey(env, 'bench-scale', false);
    for (let w = 0; w < workers; w++) processes.push(await startPresend(['worker'], { ...env, PRESEND_WORKER_ID: `bench-worker-${w + 1}` }, join(dir, `worker-${w + 1}.log`)));
    const samplers = processes.slice(1).map((p) => sampleRss(p.pid));
    await new Promise((resolve) => setTimeout(resolve, 3_000)); // workers connected and polling
    const client = new PresendClient({ baseUrl, apiKey: key });
    const pgCpu = samplePostgresCpu(database);
    const cpu0 = await Promise.all(processes.map((p) => processCpuMs(p.pid)));
    const world0 = await processCpuMs(world.pid);
    const bench0 = ownCpuMs();
    const machine0 = await machineBusyMs();
    const t0 = performance.now();
    const created = await client.createRequest({ emails: bench.addresses });
    const progress: [number, number, number] = [Number.NaN, Number.NaN, Number.NaN];
    let firstPassBusy = Number.NaN;
    const marks = [0.5, 0.9, 0.99];
    for (;;) {
      const status = await client.getRequest(created.request.id);
      const done = ((status.counters.completed ?? 0) + (status.counters.failed ?? 0)) / bench.addresses.length;
      marks.forEach((mark, i) => {
        if (done >= mark && Number.isNaN(progress[i] ?? 0)) progress[i] = performance.now() - t0;
      });
      if (done >= 0.99 && Number.isNaN(firstPassBusy)) firstPassBusy = (await machineBusyMs()) - machine0;
      if (status.request.finalized || status.request.state === 'failed') break;
      if (performance.now() - t0 > RUN_TIMEOUT_MS) throw new Error(`scale run with ${workers} worker(s) not finalized after ${RUN_TIMEOUT_MS} ms`);
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
    const ms = performance.now() - t0;
    const cpu1 = await Promise.all(processes.map((p) => processCpuMs(p.pid)));
    const cpuUsed = cpu1.map((c, i) => c - (cpu0[i] ?? c));
    const pgUsed = await pgCpu.stop();
    const cpu: CpuSplit = {
      api: cpuUsed[0] ?? Number.NaN,
      workers: cpuUsed.slice(1),
      postgresBackends: pgUsed.backends,
      postgresAux: pgUsed.aux,
      world: (await processCpuMs(world.pid)) - world0,
      bench: ownCpuMs() - bench0,
      machineBusy: (await machineBusyMs()) - machine0,
      firstPassBusy,
      firstPassMs: progress[2],
    };
    const peaks = await Promise.all(samplers.map((s) => s.stop()));
    let correct = 0;
    let total = 0;
    for await (const item of client.exportResults(created.request.id, { limit: 200 })) {
      total++;
      if (item.email && item.presend?.verdict === bench.truth[item.email]) correct++;
    }
    return { workers, ms, progress, accuracy: total > 0 ? correct / total : Number.NaN, world: await world.stats(), peakWorkerRssMb: Math.max(...peaks), cpu };
  } finally {
    for (const p of processes.reverse()) await p.stop();
    rmSync(dir, { recursive: true, force: true });
    await admin(`DROP DATABASE IF EXISTS ${database}`).catch(() => undefined);
  }
}

export async function scaleBench(): Promise<Section> {
  const world = await startWorldChild(BENCH_WORLD);
  const runs: ScaleRun[] = [];
  let failure: string | null = null;
  try {
    for (let round = 0; round < ROUNDS; round++) {
      for (const workers of [1, 2]) {
        runs.push(await oneRun(workers, world, round));
        const run = runs.at(-1) as ScaleRun;
        const c = run.cpu;
        process.stdout.write(
          `  scale round ${round + 1}, ${workers} worker(s): ${fmt(run.ms)} ms; CPU ms: worker(s) ${c.workers.map((w) => fmt(w)).join(' + ')}, API ${fmt(c.api)}, ` +
            `PostgreSQL backends ${fmt(c.postgresBackends)} (+ aux ${fmt(c.postgresAux)}), world ${fmt(c.world)}, bench ${fmt(c.bench)}; machine busy ${fmt(c.machineBusy)} of ${fmt(cpus().length * run.ms)}, to 99 % ${fmt(c.firstPassBusy)} of ${fmt(cpus().length * c.firstPassMs)}\n`,
        );
      }
    }
  } catch (error) {
    failure = error instanceof Error ? error.message : String(error);
    process.stdout.write(`  scale: ${failure}\n`);
  } finally {
    await world.close();
  }
  const of = (workers: number): ScaleRun[] => runs.filter((r) => r.workers === workers);
  const one = median(of(1).map((r) => r.ms));
  const two = median(of(2).map((r) => r.ms));
  const speedup = one / two;
  const measured = Number.isFinite(speedup);
  const row = (workers: number): string[] => {
    const list = of(workers);
    const last = list.at(-1);
    return [
      String(workers),
      list.length > 0 ? `${fmt(median(list.map((r) => r.ms)))} ms (${list.map((r) => fmt(r.ms)).join(', ')})` : 'n/a',
      list.length > 0 ? fmt((10_000 / median(list.map((r) => r.ms))) * 1000) : 'n/a',
      list.length > 0 ? [0, 1, 2].map((i) => fmt(median(list.map((r) => r.progress[i] ?? Number.NaN)))).join(' / ') : 'n/a',
      last ? pct(last.accuracy, 2) : 'n/a',
      last ? `${last.world.sessions} / ${last.world.peakPerHost}` : 'n/a',
      last ? `${fmt(last.peakWorkerRssMb)} MB` : 'n/a',
    ];
  };
  const cpuRow = (workers: number): string[] => {
    const list = of(workers);
    const m = (f: (c: CpuSplit) => number) => fmt(median(list.map((r) => f(r.cpu))));
    const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
    return [
      String(workers),
      m((c) => sum(c.workers)),
      m((c) => c.postgresBackends),
      m((c) => c.postgresAux),
      m((c) => c.api),
      m((c) => c.world),
      m((c) => c.bench),
      list.length > 0 ? `${m((c) => c.machineBusy)} of ${fmt(median(list.map((r) => r.ms * cpus().length)))}` : 'n/a',
      list.length > 0 ? pct(median(list.map((r) => r.cpu.firstPassBusy / (r.cpu.firstPassMs * cpus().length)))) : 'n/a',
    ];
  };
  const body = [
    `PostgreSQL (${POSTGRES_URL}, a fresh database per run, dropped after), \`presend serve --no-worker\` plus one or two \`presend worker\` processes (${(await presendRunner()).label}), ` +
      `the mail world of benchmark 1 in its own process, a \`ps_live.\` key. The batch: the ${fmt(10_000)} addresses of benchmark 1 through \`POST /v1/requests\`, ` +
      `timed until \`GET /v1/requests/{id}\` (polled every ${POLL_MS} ms) says finalized; greylisted addresses are rechecked after ${RECHECK_DELAY_MS} ms (PRESEND_RECHECK_DELAY_MS) and counted against the final truth. ` +
      `${ROUNDS} rounds, 1 and 2 workers alternating, medians.`,
    '',
    table(['workers', 'finalized after', 'addresses/s', '50 % / 90 % / 99 % final after (ms)', 'verdicts matching truth (last run)', 'SMTP sessions / peak per MX host (last run)', 'peak worker RSS'], [row(1), row(2)]),
    '',
    `CPU used during the run (ms, user + system, medians; from /proc): the workers summed, the PostgreSQL backends of the run's database, PostgreSQL's auxiliary processes (WAL writer, checkpointer…, shared with anything else on the server), the API node, the mail world, this benchmark process, and the whole machine against cores × wall time (whole run, and how busy the cores were until 99 % of the addresses were final — the first pass, before the recheck tail; the machine's share includes anything else running on it).`,
    '',
    table(['workers', 'worker(s)', 'PostgreSQL backends', 'PostgreSQL aux', 'API node', 'mail world', 'bench client', 'machine busy of available', 'cores busy to 99 %'], [cpuRow(1), cpuRow(2)]),
    '',
    measured ? `Two workers against one: **${fmt(speedup, 2)}×** (target ≥ ${TARGET}×).` : `Not measured: ${failure ?? 'no completed run'}.`,
    ...(failure && measured ? ['', `A later run failed: ${failure}`] : []),
  ].join('\n');
  return {
    id: 'scale',
    title: '5. Scale-out',
    body,
    summary: [
      targetRow('scale-out: 2 workers vs 1 (PostgreSQL)', measured ? `${fmt(speedup, 2)}× (${fmt(two)} vs ${fmt(one)} ms)` : `not measured (${failure ?? 'no run'})`, speedup, 'at least', TARGET, '×', 2),
    ],
  };
}
