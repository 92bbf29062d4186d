/**
 * Benchmark 9 restricted and side by side: `node --import tsx bench/ab-realmta.ts OTHER_CHECKOUT
 * server:rtt[,server:rtt…] [ROUNDS]` (servers: postfix, exim, opensmtpd, haraka; rtt 0 or 80)
 * runs `presend check --json` over benchmark 9's list from this tree's dist and from
 * OTHER_CHECKOUT's (e.g. a worktree of main, built) in alternating rounds against one bed per
 * case (Haraka: a fresh bed per run, as karma remembers clients), and prints each run, the medians
 * and the ratio — before/after figures from the same run, as a shared machine's load drifts. Both
 * dists must be built first (`npm run build` in each). Nothing is written to BENCHMARKS.md.
 */
import { join, resolve } from 'node:path';
import type { PublicVerdict } from '../src/core/types.js';
import type { MtaBed } from '../test/realmta/bed.js';
import { postfixList, truthOf } from '../test/realmta/lists.js';
import { LIST, SERVERS, presendCheck, withBed, type Server } from './realmta.js';
import { fmt, median } from './stats.js';

const CAP_MS = 300_000;
const [other, casesArg, roundsArg] = process.argv.slice(2).filter((a) => a !== '--');
if (!other || !casesArg) {
  process.stderr.write('usage: node --import tsx bench/ab-realmta.ts OTHER_CHECKOUT server:rtt[,server:rtt…] [ROUNDS]\n');
  process.exit(2);
}
const rounds = Number(roundsArg ?? 5);
const sides = [
  { name: 'this', cli: resolve('dist/cli/main.js') },
  { name: 'other', cli: join(resolve(other), 'dist/cli/main.js') },
];
const list = postfixList(LIST);
const truth: Record<string, PublicVerdict> = Object.fromEntries(list.addresses.map((a) => [a, truthOf(list, a)]));

interface Sample {
  ms: number;
  right: number;
  limitHits: number;
}

async function oneRun(bed: MtaBed, env: Record<string, string>, cli: string): Promise<Sample> {
  await bed.settle();
  const from = bed.limitLines().length;
  const outcome = await presendCheck(list.addresses, env, CAP_MS, cli);
  await bed.settle();
  const right = list.addresses.filter((a) => outcome.verdicts[a] === truth[a]).length / list.addresses.length;
  return { ms: outcome.finished ? outcome.ms : Number.POSITIVE_INFINITY, right, limitHits: bed.limitLines().length - from };
}

for (const [c, spec] of casesArg.split(',').entries()) {
  const [key, rtt] = spec.split(':');
  const rttMs = Number(rtt ?? 0);
  const index = SERVERS.findIndex((s) => s.key === key);
  const server = SERVERS[index] as Server | undefined;
  if (!server) throw new Error(`unknown server ${key}`);
  const unavailable = server.unavailable();
  if (unavailable) {
    process.stdout.write(`${spec}: skipped (${unavailable})\n`);
    continue;
  }
  const ip = `127.0.8${index + 1}.${20 + c * 2}`;
  const relayIp = `127.0.8${index + 1}.${21 + c * 2}`;
  const samples: Record<string, Sample[]> = { this: [], other: [] };
  const runAll = async (use: (cli: string) => Promise<Sample>): Promise<void> => {
    for (let round = 0; round < rounds; round++) {
      // Alternate who goes first, so neither side always follows the other's leftovers.
      const order = round % 2 === 0 ? sides : [...sides].reverse();
      for (const side of order) {
        const sample = await use(side.cli);
        samples[side.name]?.push(sample);
        process.stdout.write(`${spec} round ${round + 1} ${side.name}: ${fmt(sample.ms)} ms, ${fmt(sample.right * 100, 1)} % right, ${sample.limitHits} limit hits\n`);
      }
    }
  };
  if (server.freshPerVerifier) await runAll((cli) => withBed(server, ip, relayIp, rttMs, list, (bed, env) => oneRun(bed, env, cli)));
  else await withBed(server, ip, relayIp, rttMs, list, (bed, env) => runAll((cli) => oneRun(bed, env, cli)));
  const mine = median((samples.this ?? []).map((s) => s.ms));
  const theirs = median((samples.other ?? []).map((s) => s.ms));
  const hits = (name: string): number => (samples[name] ?? []).reduce((sum, s) => sum + s.limitHits, 0);
  const wrong = (name: string): number => (samples[name] ?? []).filter((s) => s.right < 1).length;
  process.stdout.write(
    `${spec}: median this ${fmt(mine)} ms (${fmt((list.addresses.length / mine) * 1000, 1)} addresses/s), other ${fmt(theirs)} ms (${fmt((list.addresses.length / theirs) * 1000, 1)} addresses/s); ` +
      `this/other ${fmt(mine / theirs, 2)}× the time; limit hits ${hits('this')} vs ${hits('other')}; runs not all right ${wrong('this')} vs ${wrong('other')}\n`,
  );
}
