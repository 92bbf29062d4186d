/**
 * A real `presend serve` process for the client, CLI and MCP tests: its own temporary
 * SQLite file, a free loopback port, and accounts and keys made with the admin commands —
 * the same way an operator would. Nothing is faked; everything goes over HTTP.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { CLI_NODE_ARGS, REPO_ROOT } from '../cli-entry.js';
import { until } from '../until.js';

export { REPO_ROOT };

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `presend ARGS…` as a child process, as a user would. */
export async function runCli(args: string[], env: Record<string, string | undefined>, input?: string): Promise<CliRun> {
  const child = spawn(process.execPath, [...CLI_NODE_ARGS, ...args], {
    cwd: REPO_ROOT,
    env: { ...process.env, ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  // A command may stop before it has read all of its input (a bound, a usage error): not a failure of the run.
  child.stdin.on('error', () => undefined);
  child.stdin.end(input ?? '');
  const [code] = (await once(child, 'close')) as [number | null];
  return { code, stdout, stderr };
}

export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  server.close();
  await once(server, 'close');
  return port;
}

export interface LiveService {
  baseUrl: string;
  /** Process id of the `presend serve` child (its RSS is read from /proc by the adversarial tests). */
  pid: number;
  /** Environment for admin commands: the same store as the server. */
  adminEnv: Record<string, string>;
  /** The key made for an account at start-up (printed once by `presend keys create`). */
  keyOf(account: string): string;
  /** More accounts and keys while the server runs (the store is shared through SQLite WAL). */
  createAccount(name: string, credits: number): Promise<void>;
  createKey(account: string, options?: { test?: boolean }): Promise<string>;
  /** Everything the server wrote, for failure messages. */
  logs(): string;
  stop(): Promise<void>;
}

const KEY_PATTERN = /ps_(?:live|test)\.[A-Za-z0-9]{40}/;

async function admin(env: Record<string, string>, args: string[]): Promise<string> {
  const run = await runCli(args, env);
  if (run.code !== 0) throw new Error(`presend ${args.join(' ')} exited ${run.code}: ${run.stderr}${run.stdout}`);
  return run.stdout + run.stderr;
}

async function waitUntilAnswering(baseUrl: string, child: ChildProcess, logs: () => string): Promise<void> {
  await until(() => `presend serve to answer on ${baseUrl}:\n${logs()}`, async () => {
    if (child.exitCode !== null) throw new Error(`presend serve exited with ${child.exitCode}:\n${logs()}`);
    // Any HTTP answer (a 401 here) means the routes are up.
    const response = await fetch(`${baseUrl}/v1/requests/00000000-0000-4000-8000-000000000000`).catch(() => null);
    await response?.arrayBuffer();
    return response !== null;
  }, 30_000, 150);
}

export interface AccountSpec {
  name: string;
  credits: number;
  /** A sandbox (`ps_test.`) key rather than a live one. */
  test: boolean;
}

/**
 * Starts the server and, meanwhile, creates the accounts (one key each). The first account
 * is created before the server starts so that exactly one process migrates the new store.
 */
export async function startLiveService(options: { env?: Record<string, string>; accounts?: AccountSpec[] } = {}): Promise<LiveService> {
  const dir = await mkdtemp(join(tmpdir(), 'presend-client-test-'));
  const adminEnv = { PRESEND_DATABASE_URL: `sqlite:${join(dir, 'presend.db')}`, PRESEND_LOG_LEVEL: 'warn' };
  const keys = new Map<string, string>();
  const createKey = async (account: string, test: boolean): Promise<string> => {
    const printed = await admin(adminEnv, ['keys', 'create', '--account', account, ...(test ? ['--test'] : [])]);
    const key = KEY_PATTERN.exec(printed)?.[0];
    if (!key) throw new Error('no key in the output of presend keys create');
    return key;
  };
  const [first, ...rest] = options.accounts ?? [];
  if (first) await admin(adminEnv, ['accounts', 'create', first.name, '--credits', String(first.credits)]);
  else await admin(adminEnv, ['accounts', 'create', 'bootstrap', '--credits', '0']);

  const port = await freePort();
  const child = spawn(process.execPath, [...CLI_NODE_ARGS, 'serve', '--port', String(port)], {
    cwd: REPO_ROOT,
    // A probe identity, as an operator configures one: without it live keys are refused (docs/deploy.md).
    env: { ...process.env, ...adminEnv, PRESEND_HOST: '127.0.0.1', PRESEND_HELO_NAME: 'probe.presend.test', PRESEND_MAIL_FROM: 'probe@presend.test', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  const baseUrl = `http://127.0.0.1:${port}`;
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      const closed = once(child, 'close');
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await closed;
      clearTimeout(timer);
    }
    await rm(dir, { recursive: true, force: true });
  };
  const setUpAccounts = async (): Promise<void> => {
    if (first) keys.set(first.name, await createKey(first.name, first.test));
    for (const account of rest) {
      await admin(adminEnv, ['accounts', 'create', account.name, '--credits', String(account.credits)]);
      keys.set(account.name, await createKey(account.name, account.test));
    }
  };
  try {
    await Promise.all([waitUntilAnswering(baseUrl, child, () => output), setUpAccounts()]);
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    baseUrl,
    pid: child.pid ?? 0,
    adminEnv,
    keyOf(account) {
      const key = keys.get(account);
      if (!key) throw new Error(`no account ${account} was set up`);
      return key;
    },
    async createAccount(name, credits) {
      await admin(adminEnv, ['accounts', 'create', name, '--credits', String(credits)]);
    },
    createKey: (account, keyOptions = {}) => createKey(account, keyOptions.test === true),
    logs: () => output,
    stop,
  };
}
