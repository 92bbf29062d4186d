/**
 * One `presend check --jsonl` over benchmark 9's list at one bed, with each output line's time
 * since the process was spawned: where a run's wall time goes (start-up, first verdict, the
 * spread of the rest). `node --import tsx bench/trace-realmta.ts server:rtt [extra env K=V…]`.
 */
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { postfixList } from '../test/realmta/lists.js';
import { LIST, SERVERS, withBed } from './realmta.js';

const [spec, ...extra] = process.argv.slice(2).filter((a) => a !== '--');
const [key, rtt] = (spec ?? 'exim:80').split(':');
const index = SERVERS.findIndex((s) => s.key === key);
const server = SERVERS[index];
if (!server) throw new Error(`unknown server ${key}`);
const list = postfixList(LIST);
await withBed(server, `127.0.9${index + 1}.2`, `127.0.9${index + 1}.3`, Number(rtt ?? 0), list, async (bed, env) => {
  await bed.settle();
  const from = bed.limitLines().length;
  const started = performance.now();
  const child = spawn(process.execPath, [resolve('dist/cli/main.js'), 'check', '--jsonl', ...list.addresses], {
    env: { ...process.env, ...env, ...Object.fromEntries(extra.map((kv) => kv.split('=') as [string, string])) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const times: number[] = [];
  let rest = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    const lines = (rest + chunk).split('\n');
    rest = lines.pop() ?? '';
    for (const _ of lines) times.push(performance.now() - started);
  });
  await new Promise((r) => child.once('exit', r));
  const total = performance.now() - started;
  const at = (q: number): string => (times[Math.min(times.length - 1, Math.floor(q * times.length))] ?? NaN).toFixed(0);
  process.stdout.write(`${spec}: ${times.length} lines; first ${at(0)} ms, 10 % ${at(0.1)}, 50 % ${at(0.5)}, 90 % ${at(0.9)}, last ${at(1)}; exit ${total.toFixed(0)} ms; limit lines ${bed.limitLines().length - from}\n`);
});
