/**
 * `presend` as a child process for the API, batch and scale benchmarks: admin commands on a
 * fresh store, `presend serve` / `presend worker` started from a fresh `npm run build`
 * (`node dist/cli/main.js`, as deployed: tsx alone adds ~50 MB of RSS and its loader's CPU),
 * falling back to the sources through tsx if the build fails; their logs in a file, and RSS
 * sampling from /proc.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { closeSync, mkdtempSync, openSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const MAIN = fileURLToPath(new URL('../src/cli/main.ts', import.meta.url));
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BUILT = fileURLToPath(new URL('../dist/cli/main.js', import.meta.url));
const run = promisify(execFile);

export interface Runner {
  /** Node arguments that start the `presend` CLI. */
  args: string[];
  /** For the report: how the service ran. */
  label: string;
}

let runner: Promise<Runner> | undefined;

/**
 * PRESEND_BENCH_CLI runs another build instead of this checkout's: the path of its
 * `dist/cli/main.js` (e.g. a `git worktree` of an older commit, built there), so that two versions
 * are measured by the same harness, side by side.
 */
const OTHER_CLI = process.env.PRESEND_BENCH_CLI;

/** Builds once per benchmark run (`npm run build`); the sources through tsx if that fails. */
export function presendRunner(): Promise<Runner> {
  if (OTHER_CLI) runner ??= Promise.resolve({ args: [OTHER_CLI], label: `\`node ${OTHER_CLI}\` (PRESEND_BENCH_CLI)` });
  runner ??= run('npm', ['run', 'build'], { cwd: ROOT }).then(
    (): Runner => ({ args: [BUILT], label: '`node dist/cli/main.js` after `npm run build`' }),
    (error: unknown): Runner => {
      process.stdout.write(`  npm run build failed, running the sources through tsx: ${String(error).slice(0, 300)}\n`);
      return { args: ['--import', 'tsx', MAIN], label: 'the sources through tsx (`npm run build` failed in this run)' };
    },
  );
  return runner;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Runs `presend ARGS --json` and returns its parsed output. */
export async function presendAdmin<T>(args: readonly string[], env: Record<string, string>): Promise<T> {
  const { args: cli } = await presendRunner();
  const { stdout } = await run(process.execPath, [...cli, ...args, '--json'], { env: { ...process.env, ...env } });
  return JSON.parse(stdout) as T;
}

/** A fresh account with plenty of credits and one key of the given mode. */
export async function accountWithKey(env: Record<string, string>, name: string, test: boolean): Promise<string> {
  await presendAdmin(['accounts', 'create', name, '--credits', '100000000'], env);
  const created = await presendAdmin<{ key: string }>(['keys', 'create', '--account', name, ...(test ? ['--test'] : [])], env);
  return created.key;
}

export interface PresendProcess {
  child: ChildProcess;
  pid: number;
  stop(): Promise<void>;
}

/**
 * PRESEND_BENCH_NODE_ARGS adds node flags to the service processes, e.g.
 * `--cpu-prof --cpu-prof-dir=/tmp/prof` to profile the server under the benchmark's load.
 */
const EXTRA_NODE_ARGS = (process.env.PRESEND_BENCH_NODE_ARGS ?? '').split(/\s+/).filter(Boolean);

export async function startPresend(args: readonly string[], env: Record<string, string>, logFile: string): Promise<PresendProcess> {
  const { args: cli } = await presendRunner();
  const log = openSync(logFile, 'a');
  const child = spawn(process.execPath, [...EXTRA_NODE_ARGS, ...cli, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', log, log] });
  closeSync(log);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    child,
    pid: child.pid ?? 0,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** Waits until GET url answers 200 (the server is listening and ready). */
export async function waitReady(url: string, child: ChildProcess, timeoutMs = 60_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode} before it was ready`);
    try {
      const response = await fetch(url);
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${url} not ready after ${timeoutMs} ms`);
}

/** Peak resident memory of a process so far (VmHWM, kB → MB). */
export async function peakRssMb(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const match = /VmHWM:\s+(\d+)\s+kB/.exec(status);
  return match ? Number(match[1]) / 1024 : Number.NaN;
}

export async function currentRssMb(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const match = /VmRSS:\s+(\d+)\s+kB/.exec(status);
  return match ? Number(match[1]) / 1024 : Number.NaN;
}

/** Samples VmRSS every `everyMs` and keeps the maximum (VmHWM is read at the end as well). */
export function sampleRss(pid: number, everyMs = 50): { stop(): Promise<number> } {
  let max = 0;
  const timer = setInterval(() => {
    void readFile(`/proc/${pid}/status`, 'utf8').then(
      (status) => {
        const match = /VmRSS:\s+(\d+)\s+kB/.exec(status);
        if (match) max = Math.max(max, Number(match[1]) / 1024);
      },
      () => undefined,
    );
  }, everyMs);
  return {
    async stop() {
      clearInterval(timer);
      const hwm = await peakRssMb(pid).catch(() => Number.NaN);
      return Number.isNaN(hwm) ? max : Math.max(max, hwm);
    },
  };
}

export interface ServiceEnv {
  dir: string;
  env: Record<string, string>;
}

/** A fresh SQLite store in a temp dir, rate limits raised so the benchmark measures throughput, not 429s. */
export function serviceEnv(port: number): ServiceEnv {
  const dir = mkdtempSync(join(tmpdir(), 'presend-bench-'));
  return {
    dir,
    env: {
      PRESEND_DATABASE_URL: `sqlite:${join(dir, 'presend.db')}`,
      PRESEND_HOST: '127.0.0.1',
      PRESEND_PORT: String(port),
      PRESEND_RATE_LIMIT_PER_SECOND: '1000000',
      PRESEND_RATE_LIMIT_BURST: '1000000',
    },
  };
}
