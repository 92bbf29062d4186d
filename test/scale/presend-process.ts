/**
 * Presend as separate processes for the scale-out tests: `presend serve --no-worker` nodes on
 * port 0 (the URL is read from the start-up log line) and `presend worker` processes, run as
 * test/cli-entry.ts says (the build when current, else the sources through tsx).
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { CLI_NODE_ARGS, REPO_ROOT } from '../cli-entry.js';

/** Kept per process for diagnostics when a test fails. */
const OUTPUT_TAIL = 20_000;

export interface PresendProcess {
  name: string;
  child: ChildProcess;
  output(): string;
  /** Resolves with the first match of `pattern` in the output (or rejects when the process exits first). */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves when the process is gone. */
  stop(graceMs?: number): Promise<void>;
  kill(): Promise<void>;
}

export function startPresend(name: string, args: string[], env: Record<string, string>): PresendProcess {
  const child = spawn(process.execPath, [...CLI_NODE_ARGS, ...args], {
    cwd: REPO_ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const listeners = new Set<() => void>();
  const append = (chunk: string) => {
    output = (output + chunk).slice(-OUTPUT_TAIL);
    for (const l of [...listeners]) l();
  };
  child.stdout?.setEncoding('utf8').on('data', append);
  child.stderr?.setEncoding('utf8').on('data', append);
  const gone = once(child, 'exit').then(() => undefined);

  const waitFor = (pattern: RegExp, timeoutMs = 30_000) =>
    new Promise<RegExpMatchArray>((resolve, reject) => {
      const check = () => {
        const m = output.match(pattern);
        if (m) return finish(() => resolve(m));
        if (child.exitCode !== null || child.signalCode !== null) finish(() => reject(new Error(`${name} exited before ${pattern}:\n${output}`)));
      };
      const finish = (settle: () => void) => {
        clearTimeout(timer);
        listeners.delete(check);
        child.off('exit', check);
        settle();
      };
      const timer = setTimeout(() => finish(() => reject(new Error(`${name}: no ${pattern} within ${timeoutMs} ms:\n${output}`))), timeoutMs);
      listeners.add(check);
      child.on('exit', check);
      check();
    });

  const alive = () => child.exitCode === null && child.signalCode === null;
  return {
    name,
    child,
    output: () => output,
    waitFor,
    async stop(graceMs = 10_000) {
      if (!alive()) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await gone;
      clearTimeout(timer);
    },
    async kill() {
      if (!alive()) return;
      child.kill('SIGKILL');
      await gone;
    },
  };
}

/** An API node: `presend serve --no-worker --port 0`; resolves with its base URL once it listens. */
export async function startApiNode(name: string, env: Record<string, string>): Promise<{ proc: PresendProcess; url: string }> {
  const proc = startPresend(name, ['serve', '--no-worker', '--host', '127.0.0.1', '--port', '0'], { ...env, PRESEND_LOG_LEVEL: 'info' });
  const match = await proc
    .waitFor(/"url":"(http:\/\/127\.0\.0\.1:\d+)"[^\n]*presend serving|presend serving[^\n]*"url":"(http:\/\/127\.0\.0\.1:\d+)"/)
    .catch(async (err: unknown) => {
      await proc.kill(); // a node that never came up must not outlive the test
      throw err;
    });
  return { proc, url: (match[1] ?? match[2]) as string };
}

/** A batch worker process; resolves once it runs. */
export async function startWorker(name: string, env: Record<string, string>): Promise<PresendProcess> {
  const proc = startPresend(name, ['worker'], { ...env, PRESEND_LOG_LEVEL: 'info' });
  await proc.waitFor(/presend worker running/).catch(async (err: unknown) => {
    await proc.kill();
    throw err;
  });
  return proc;
}
