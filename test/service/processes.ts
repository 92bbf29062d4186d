/** Child processes of the real CLI (started as test/cli-entry.ts says) for process-level tests. */
import { execFile, spawn } from 'node:child_process';
import { promisify } from 'node:util';
import type { ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { CLI_NODE_ARGS } from '../cli-entry.js';

export function spawnCli(args: string[], env: Record<string, string>): ChildProcess {
  return spawn(process.execPath, [...CLI_NODE_ARGS, ...args], {
    cwd: process.cwd(),
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** Waits until a JSON log line with `msg` appears on stdout or stderr; returns it. */
export function waitForLog(child: ChildProcess, msg: string, timeoutMs = 30_000): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no "${msg}" log line`)), timeoutMs);
    const onLine = (line: string) => {
      try {
        const entry = JSON.parse(line) as Record<string, unknown>;
        if (entry.msg === msg) {
          clearTimeout(timer);
          resolve(entry);
        }
      } catch {
        /* not a log line */
      }
    };
    for (const stream of [child.stdout, child.stderr]) if (stream) createInterface({ input: stream }).on('line', onLine);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`process exited with ${code} before "${msg}"`));
    });
  });
}

export async function startServe(env: Record<string, string>, extraArgs: string[] = []): Promise<{ child: ChildProcess; url: string }> {
  const child = spawnCli(['serve', ...extraArgs], env);
  const entry = await waitForLog(child, 'presend serving');
  return { child, url: String(entry.url) };
}

export const exited = (child: ChildProcess): Promise<void> =>
  new Promise((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve() : child.once('exit', () => resolve())));

const run = promisify(execFile);

/** Runs one `presend …` command to its end: exit code and output. */
export async function presend(args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [...CLI_NODE_ARGS, ...args], { env: { ...process.env, ...env } });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}
