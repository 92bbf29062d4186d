/**
 * Reads a .cpuprofile (node --cpu-prof) and sums sampled time by concern, so BENCHMARKS.md
 * can say what bounds a figure with numbers rather than a guess:
 *   node --import tsx bench/profile-summary.ts FILE.cpuprofile [top]
 * Each sample goes to the first category matched walking from the sampled frame towards the
 * root (a native call such as writev belongs to the JS that made it), plus a top list of
 * self time by function.
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  parent?: number;
  children?: number[];
  callFrame: { functionName: string; url: string; lineNumber: number };
}

interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const CATEGORIES: Array<[string, RegExp]> = [
  ['idle', /^\(idle\)$/],
  ['garbage collection', /^\(garbage collector\)$/],
  // Profiler.stop serialising the profile (bench/profile-engine.ts): not the program's time.
  ['profiler itself (node:inspector)', /^node:inspector$/],
  ['SQLite store (better-sqlite3 + src/store/sqlite)', /better-sqlite3|(src|dist)\/store\/sqlite/],
  ['PostgreSQL store (pg, src/store/postgres, src/queue/postgres-notify)', /node_modules\/pg|(src|dist)\/store\/postgres|postgres-notify/],
  ['request logging (pino)', /pino|@pinojs/],
  ['engine (src/core)', /(src|dist)\/core\//],
  ['queue / worker (src/queue)', /(src|dist)\/queue\//],
  ['service (src/service)', /(src|dist)\/service\//],
  ['API layer (src/api)', /(src|dist)\/api\//],
  ['Fastify, ajv, JSON parsing', /fastify|ajv|secure-json-parse|fast-json-stringify|find-my-way|avvio|light-my-request/],
  ['sockets and HTTP (node:net, node:http, writev)', /node:_http|node:net|node:internal\/stream_base_commons|^writev$|^writeUtf8String$|^writeBuffer$|^writeString$/],
  ['module loading (start-up)', /node:internal\/modules|tsx|^compileSourceTextModule$/],
];

function label(node: ProfileNode): string {
  const f = node.callFrame;
  return f.url ? f.url : f.functionName;
}

export function summarize(path: string, top = 15): string {
  const profile = JSON.parse(readFileSync(path, 'utf8')) as Profile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const perCategory = new Map<string, number>();
  const selfByFunction = new Map<string, number>();
  let total = 0;
  profile.samples.forEach((sample, i) => {
    const us = profile.timeDeltas[i] ?? 0;
    total += us;
    let category = 'other';
    for (let id: number | undefined = sample; id !== undefined; id = parent.get(id)) {
      const node = byId.get(id);
      if (!node) break;
      const text = label(node);
      const hit = CATEGORIES.find(([, re]) => re.test(text) || re.test(node.callFrame.functionName));
      if (hit) {
        category = hit[0];
        break;
      }
    }
    perCategory.set(category, (perCategory.get(category) ?? 0) + us);
    const leaf = byId.get(sample);
    if (leaf) {
      const key = `${leaf.callFrame.functionName || '(anonymous)'} ${leaf.callFrame.url.replace(/^.*\/(node_modules|src|dist|bench)\//, '$1/')}`;
      selfByFunction.set(key, (selfByFunction.get(key) ?? 0) + us);
    }
  });
  const busy = total - (perCategory.get('idle') ?? 0);
  const lines = [`sampled ${(total / 1e6).toFixed(1)} s, busy (not idle) ${(busy / 1e6).toFixed(1)} s`, '', '| concern | busy time | share of busy |', '|---|---|---|'];
  for (const [name, us] of [...perCategory].sort((a, b) => b[1] - a[1])) {
    if (name === 'idle') continue;
    lines.push(`| ${name} | ${(us / 1e6).toFixed(2)} s | ${((100 * us) / busy).toFixed(1)} % |`);
  }
  lines.push('', '| function (self time) | time |', '|---|---|');
  for (const [name, us] of [...selfByFunction].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    if (name.startsWith('(idle)')) continue;
    lines.push(`| \`${name}\` | ${(us / 1e6).toFixed(2)} s |`);
  }
  return lines.join('\n');
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop() ?? '')) {
  const [file, top] = process.argv.slice(2);
  if (!file) {
    process.stderr.write('usage: bench/profile-summary.ts FILE.cpuprofile [top]\n');
    process.exit(2);
  }
  process.stdout.write(`${summarize(file, Number(top ?? 15))}\n`);
}
