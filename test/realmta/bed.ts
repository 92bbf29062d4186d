/**
 * What every server of the real-MTA test bed has in common (README.md beside this file): the
 * interface the tests and benchmarks use, a free port on the server's own loopback address, the
 * wait for its greeting, the wait for it to settle after the client has gone, its daemon
 * process, and the rule that in CI a missing server fails the suite instead of skipping it.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, openSync, closeSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { createServer, connect } from 'node:net';
import { join } from 'node:path';

/** One private server of the bed, on its own loopback address; no mail is ever taken for delivery. */
export interface MtaBed {
  /** "Exim 4.96", "OpenSMTPD 6.8", … as the server names itself. */
  name: string;
  ip: string;
  port: number;
  hostname: string;
  /** The server's log so far. */
  log(): string;
  /** Log lines that say a client hit one of the server's limits or defences (each bed knows its own wording). */
  limitLines(): string[];
  /** Messages the server holds (its queue or spool): 0 when nothing was ever taken; read it after settle(). */
  queuedFiles(): number;
  /**
   * Resolves once the server has settled after the client went: no TCP session to it is left
   * open on the server's side, its log has stopped growing (and the bed's own condition holds)
   * — or after `timeoutMs` (default 10 s), whatever the state. Read the log after this: a
   * server finishes a session (and logs it) a little after the client has closed it.
   */
  settle(timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

/** Where test/realmta/install.sh unpacks the Exim and OpenSMTPD packages (Debian declares them in conflict with postfix). */
export const REALMTA_ROOT = process.env.PRESEND_REALMTA_ROOT ?? '/var/cache/presend-realmta';

/**
 * The `skip` option for a real-MTA suite: the reason it cannot run here, or false. With
 * PRESEND_REQUIRE_REAL_MTA=1 (.ci/run sets it after installing the bed) a missing server is an
 * error when the test file loads, so CI fails instead of skipping silently.
 */
export function skipUnless(name: string, unavailable: string | null): string | false {
  if (unavailable && process.env.PRESEND_REQUIRE_REAL_MTA === '1') throw new Error(`the real-MTA tests (${name}) must run here, but ${unavailable}`);
  if (unavailable) process.stdout.write(`# real-MTA tests (${name}) skipped: ${unavailable}\n`);
  return unavailable ?? false;
}

/**
 * Why a server cannot be started here, or null: not root, a file the install did not leave, or
 * a system user its daemon switches to that does not exist.
 */
export function missingFor(server: string, files: readonly string[], users: readonly string[]): string | null {
  const hint = 'run test/realmta/install.sh, as .ci/run does';
  if (process.getuid?.() !== 0) return `starting a private ${server} needs root (it drops privileges to its own user)`;
  const missing = files.find((file) => !existsSync(file));
  if (missing) return `${missing} is missing: ${hint}`;
  const nobody = users.find((user) => spawnSync('id', [user], { stdio: 'ignore' }).status !== 0);
  return nobody ? `the ${nobody} user does not exist: ${hint}` : null;
}

export function freePort(ip: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, ip, () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Resolves once a server on ip:port sends its 220 greeting; `exited` rejects early when its process is gone. */
export async function greeted(ip: string, port: number, timeoutMs: number, exited?: () => string | null): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const socket = connect({ host: ip, port });
      const done = (value: boolean): void => {
        socket.destroy();
        resolve(value);
      };
      socket.once('data', (chunk) => {
        socket.write('QUIT\r\n');
        done(chunk.toString().startsWith('220'));
      });
      socket.once('error', () => done(false));
      socket.setTimeout(1000, () => done(false));
    });
    if (ok) return;
    const gone = exited?.();
    if (gone) throw new Error(gone);
    if (Date.now() > deadline) throw new Error(`no greeting on ${ip}:${port} within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** /proc/net/tcp's form of an IPv4 address and port: the address's bytes reversed, in hex. */
function procAddress(ip: string, port: number): string {
  const hex = ip
    .split('.')
    .reverse()
    .map((byte) => Number(byte).toString(16).padStart(2, '0'))
    .join('');
  return `${hex}:${port.toString(16).padStart(4, '0')}`.toUpperCase();
}

/**
 * TCP sessions the server on ip:port still has open on its side (Linux, /proc/net/tcp): every
 * socket on that local address but the listener (state 0A) and those already closed (TIME_WAIT
 * 06, CLOSE 07). A server that has not yet closed a session its client ended is in CLOSE_WAIT
 * (08): counted, since it may still be logging it.
 */
export function openSessions(ip: string, port: number): number {
  const local = procAddress(ip, port);
  let count = 0;
  for (const line of readFileSync('/proc/net/tcp', 'utf8').split('\n').slice(1)) {
    const fields = line.trim().split(/\s+/);
    if (fields[1] === local && !['0A', '06', '07'].includes(fields[3] ?? '')) count++;
  }
  return count;
}

/** MtaBed.settle for a server on ip:port whose log is `log()`; `quiet` adds the bed's own condition (e.g. an empty queue). */
export async function settleServer(ip: string, port: number, log: () => string, timeoutMs = 10_000, quiet: () => boolean = () => true): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastSize = -1;
  for (;;) {
    const size = log().length;
    if ((size === lastSize && openSessions(ip, port) === 0 && quiet()) || Date.now() > deadline) return;
    lastSize = size;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Files under `dir`, at any depth (0 when it does not exist). */
export function filesUnder(dir: string): number {
  if (!existsSync(dir)) return 0;
  let count = 0;
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    count += statSync(path).isDirectory() ? filesUnder(path) : 1;
  }
  return count;
}

/** The text of a file, or '' before it exists. */
export function readLog(path: string): string {
  return existsSync(path) ? readFileSync(path, 'utf8') : '';
}

export interface Daemon {
  process: ChildProcess;
  /** Why the process is gone, or null while it runs. */
  exited(): string | null;
  /** SIGTERM, then SIGKILL if it has not gone within 5 s; resolves once it has exited. */
  stop(): Promise<void>;
}

/**
 * A server run in the foreground as a child of the test process, its stdout and stderr
 * appended to `outputFile`. Killed if the test process exits without stopping it.
 */
export function startDaemon(command: string, args: readonly string[], options: { outputFile: string; env?: NodeJS.ProcessEnv; cwd?: string }): Daemon {
  const out = openSync(options.outputFile, 'a');
  const child = spawn(command, args, { stdio: ['ignore', out, out], env: options.env ?? process.env, ...(options.cwd ? { cwd: options.cwd } : {}) });
  closeSync(out);
  let exit: string | null = null;
  const gone = new Promise<void>((resolve) => {
    child.once('exit', (code, signal) => {
      exit = `${command} exited (${signal ?? `code ${code}`}): ${readLog(options.outputFile).split('\n').slice(-10).join('\n')}`;
      resolve();
    });
    child.once('error', (error) => {
      exit = `${command} did not start: ${error.message}`;
      resolve();
    });
  });
  const killOnExit = (): void => {
    child.kill('SIGKILL');
  };
  process.once('exit', killOnExit);
  return {
    process: child,
    exited: () => exit,
    async stop() {
      process.off('exit', killOnExit);
      if (exit === null) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
        await gone;
        clearTimeout(timer);
      }
    },
  };
}

/**
 * Waits for the greeting of a server just started; if none comes, stops its daemons, removes
 * its temp dir and throws with the end of its log.
 */
export async function awaitGreeting(name: string, ip: string, port: number, daemons: readonly Daemon[], dir: string, log: () => string): Promise<void> {
  try {
    await greeted(ip, port, 30_000, () => daemons.map((d) => d.exited()).find((gone) => gone !== null) ?? null);
  } catch (error) {
    for (const daemon of daemons) await daemon.stop();
    const tail = log().split('\n').slice(-12).join('\n');
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`${name} did not start: ${(error as Error).message}\n${tail}`);
  }
}
