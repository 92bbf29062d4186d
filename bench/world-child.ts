/**
 * Parent side of bench/world-process.ts: start the world in a child process and talk to it.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { BenchWorldOptions } from '../src/mailworld/index.js';

export interface WorldStats {
  sessions: number;
  rcpts: number;
  peakPerHost: number;
  dnsQueries: number;
  /** Defences the hosts set off (mail world defences.ts), by kind. */
  limitHits: Record<string, number>;
}

export interface WorldChild {
  env: Record<string, string>;
  dns: { host: string; port: number };
  smtpPort: number;
  pid: number;
  reset(): Promise<void>;
  stats(): Promise<WorldStats>;
  /** Every recorded session's start and end (epoch ms), for timing breakdowns. */
  timeline(): Promise<Array<{ host: string; startedAt: number; endedAt: number | null; commands: number }>>;
  close(): Promise<void>;
}

const SCRIPT = fileURLToPath(new URL('./world-process.ts', import.meta.url));

function nextMessage<T>(child: ChildProcess, type: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const onMessage = (message: { type: string }): void => {
      if (message.type !== type) return;
      cleanup();
      resolve(message as T);
    };
    const onExit = (code: number | null): void => {
      cleanup();
      reject(new Error(`mail world process exited (${code}) before "${type}"`));
    };
    const cleanup = (): void => {
      child.off('message', onMessage);
      child.off('exit', onExit);
    };
    child.on('message', onMessage);
    child.once('exit', onExit);
  });
}

export async function startWorldChild(world: BenchWorldOptions, smtpPort = 0): Promise<WorldChild> {
  const child = fork(SCRIPT, [JSON.stringify({ world, smtpPort })], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const ready = await nextMessage<{ env: Record<string, string>; dns: { host: string; port: number }; smtpPort: number }>(child, 'ready');
  return {
    ...ready,
    pid: child.pid ?? 0,
    async reset() {
      const done = nextMessage(child, 'reset-done');
      child.send({ type: 'reset' });
      await done;
    },
    async stats() {
      const stats = nextMessage<WorldStats>(child, 'stats');
      child.send({ type: 'stats' });
      return stats;
    },
    async timeline() {
      const answer = nextMessage<{ sessions: Array<{ host: string; startedAt: number; endedAt: number | null; commands: number }> }>(child, 'timeline');
      child.send({ type: 'timeline' });
      return (await answer).sessions;
    },
    async close() {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.send({ type: 'close' });
      await exited;
    },
  };
}
