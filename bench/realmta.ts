/**
 * Benchmark 9: one list at each server of the real-MTA test bed (test/realmta/README.md) —
 * Postfix, Exim, OpenSMTPD, Haraka, each with the defences its admins turn on — at 0 and at 80 ms
 * round trip (the bed's latency relay), through `presend check` run as users run it (a process:
 * `node dist/cli/main.js check --json …`, the list's DNS in its environment) and through the two
 * npm verifiers of benchmark 2 (compare-child.ts, at most 2 checks at once, each an SMTP session).
 *
 * The npm verifiers dial port 25 only, so every verifier reaches the server through a relay on
 * port 25 of its own address (0 ms or 40 ms each way): the same path for all. Reported per
 * server, round trip and verifier: addresses/s, accuracy, the server's limit lines while it ran.
 * Haraka's karma remembers clients, so each verifier gets a fresh Haraka; the others are shared.
 */
import { execFileSync, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { PublicVerdict } from '../src/core/types.js';
import type { MtaBed } from '../test/realmta/bed.js';
import { eximUnavailable, startExim } from '../test/realmta/exim-bed.js';
import { harakaUnavailable, startHaraka, type HarakaBed } from '../test/realmta/haraka-bed.js';
import { startLatencyRelay } from '../test/realmta/latency-relay.js';
import { listDns, postfixList, truthOf, type RealMtaList } from '../test/realmta/lists.js';
import { openSmtpdUnavailable, startOpenSmtpd } from '../test/realmta/opensmtpd-bed.js';
import { postfixUnavailable, startPostfix } from '../test/realmta/postfix-bed.js';
import { runChild, score, versionOf, type Scored } from './compare.js';
import type { CompareJob, CompareOutcome } from './compare-child.js';
import { table, targetRow, type Section, type SummaryRow } from './section.js';
import { fmt, median, pct } from './stats.js';

const ID = 'realmta';
const TITLE = '9. Four real MTAs at 0 and 80 ms';
const ROOT = fileURLToPath(new URL('../', import.meta.url));
const CLI = fileURLToPath(new URL('../dist/cli/main.js', import.meta.url));
/** The list at every server: 400 addresses over two domains, 25 % unknown (issue 20's Haraka figure). */
export const LIST = { perDomain: 200, unknownShare: 0.25, seed: 60 };
/** The npm verifiers may start checks for this long; what they finished is scored. */
const OTHERS_BUDGET_MS = 45_000;
/** `presend check` is stopped after this long (a result past it misses every target anyway). */
const PRESEND_CAP_MS = 300_000;
/** Runs of `presend check` per server and round trip (one at Haraka: minutes each today); the figure is their median. */
const PRESEND_RUNS = 3;
const ROUND_TRIPS = [0, 80];
const TARGET_SPEEDUP_AT_80 = 5;
const HARAKA_TARGET_S = 200;
/** Addresses in each of the two lists of the "100 %-unknown domain" comparison at Postfix. */
const UNKNOWN_DOMAIN_SIZE = 100;
/** Runs a side of the 100 %-unknown comparison: a difference of a few percent needs more than three to stand above the noise. */
const UNKNOWN_DOMAIN_RUNS = 8;

export interface Server {
  key: 'postfix' | 'exim' | 'opensmtpd' | 'haraka';
  /**
   * Checks at once for the npm verifiers (each an SMTP session): as many as the server lets one
   * client hold, capped at 10 — Exim's smtp_accept_max_per_host, Haraka's 3 — so the baseline
   * is as fast as the host allows, not slowed by our politeness.
   */
  lanes: number;
  unavailable: () => string | null;
  /** A fresh bed per verifier (Haraka: karma's history would carry over). */
  freshPerVerifier: boolean;
  start: (ip: string, list: RealMtaList) => Promise<MtaBed>;
}

export const SERVERS: Server[] = [
  // in_flow_delay off, as in benchmark 6 (bench/postfix.ts says why: a bed that never delivers runs out of inflow tokens).
  { key: 'postfix', lanes: 10, unavailable: postfixUnavailable, freshPerVerifier: false, start: (ip, list) => startPostfix({ ip, domains: list.domains, recipients: [...list.existing], mainCf: ['in_flow_delay = 0s'] }) },
  { key: 'exim', lanes: 10, unavailable: eximUnavailable, freshPerVerifier: false, start: (ip, list) => startExim({ ip, domains: list.domains, recipients: [...list.existing] }) },
  { key: 'opensmtpd', lanes: 10, unavailable: openSmtpdUnavailable, freshPerVerifier: false, start: (ip, list) => startOpenSmtpd({ ip, domains: list.domains, recipients: [...list.existing] }) },
  { key: 'haraka', lanes: 3, unavailable: harakaUnavailable, freshPerVerifier: true, start: (ip, list) => startHaraka({ ip, domains: list.domains, recipients: [...list.existing] }) },
];

interface Run extends Scored {
  server: string;
  rttMs: number;
  finished: boolean;
  limitHits: number;
  /** Haraka: sessions karma penalised. */
  karmaSessions: number | null;
}

/** `presend check --json` over `addresses` as a process (this tree's, or the `cli` given); stopped after `capMs`. */
export async function presendCheck(addresses: readonly string[], env: Record<string, string>, capMs: number, cli = CLI): Promise<CompareOutcome & { finished: boolean }> {
  const started = performance.now();
  const child = spawn(process.execPath, [cli, 'check', '--json', ...addresses], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  child.stderr.resume();
  const timer = setTimeout(() => child.kill('SIGKILL'), capMs);
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  clearTimeout(timer);
  const ms = performance.now() - started;
  if (code !== 0) return { ms, verdicts: {}, finished: false };
  const results = JSON.parse(out) as Array<{ email: string; envelope: { verdict: PublicVerdict | null } }>;
  return { ms, verdicts: Object.fromEntries(results.map((r) => [r.email, r.envelope.verdict ?? 'UNKNOWN'])), finished: true };
}

/** A bed, the relay on port 25 in front of it and the DNS that points the list there; `use` runs with them, then all stop. */
export async function withBed<T>(server: Server, ip: string, relayIp: string, rttMs: number, list: RealMtaList, use: (bed: MtaBed, env: Record<string, string>, dnsServer: string) => Promise<T>): Promise<T> {
  const bed = await server.start(ip, list);
  const relay = await startLatencyRelay({ ip: relayIp, port: 25, target: { host: bed.ip, port: bed.port }, oneWayMs: rttMs / 2 });
  const dns = await listDns(list, relayIp);
  try {
    return await use(bed, { ...dns.env(), PRESEND_SMTP_PORT: '25' }, `${dns.dns.host}:${dns.dns.port}`);
  } finally {
    await dns.close();
    await relay.close();
    await bed.stop();
  }
}

function note(line: string): void {
  process.stdout.write(`  ${line}\n`);
}

async function measureServer(server: Server, index: number, list: RealMtaList, truth: Record<string, PublicVerdict>): Promise<Run[]> {
  const runs: Run[] = [];
  for (const [r, rttMs] of ROUND_TRIPS.entries()) {
    const ip = `127.0.8${index}.${2 + r * 2}`;
    const relayIp = `127.0.8${index}.${3 + r * 2}`;
    const verifiers = ['Presend (presend check)', 'deep-email-validator', 'email-deep-validator'] as const;
    const measureOne = async (bed: MtaBed, env: Record<string, string>, dnsServer: string, verifier: (typeof verifiers)[number]): Promise<void> => {
      await bed.settle();
      const from = bed.limitLines().length;
      const karmaFrom = (bed as Partial<HarakaBed>).karmaSessions?.().length ?? 0;
      let outcomes: Array<CompareOutcome & { finished?: boolean }>;
      let name: string;
      let version: string;
      if (verifier === 'Presend (presend check)') {
        name = verifier;
        version = versionOf('../');
        outcomes = [];
        const passes = server.key === 'haraka' ? 1 : PRESEND_RUNS;
        for (let pass = 0; pass < passes; pass++) {
          outcomes.push(await presendCheck(list.addresses, env, PRESEND_CAP_MS));
          await bed.settle();
        }
      } else {
        name = verifier;
        version = versionOf(verifier);
        const job: CompareJob = { verifier, dnsServer, env, addresses: list.addresses, perDomain: server.lanes, lanes: server.lanes, budgetMs: OTHERS_BUDGET_MS };
        outcomes = await runChild([job], () => bed.settle());
      }
      await bed.settle();
      const finished = outcomes.every((o) => o.finished !== false);
      const scored = score(name, version, outcomes, truth);
      const karma = (bed as Partial<HarakaBed>).karmaSessions?.().length;
      const run: Run = {
        ...scored,
        // The median of the runs' wall times; a run stopped at the cap counts at the cap.
        ms: median(outcomes.map((o) => o.ms)),
        server: bed.name,
        rttMs,
        finished,
        limitHits: bed.limitLines().length - from,
        karmaSessions: karma === undefined ? null : karma - karmaFrom,
      };
      runs.push(run);
      note(
        `${bed.name}, ${rttMs} ms, ${name}: ${finished ? `${fmt(run.perSecond, 1)} addresses/s, ${pct(run.accuracy)} right` : `not finished in ${PRESEND_CAP_MS / 1000} s`}, ` +
          `limit hits ${run.limitHits}${run.karmaSessions === null ? '' : `, karma-penalised sessions ${run.karmaSessions}`}`,
      );
    };
    if (server.freshPerVerifier) {
      for (const verifier of verifiers) await withBed(server, ip, relayIp, rttMs, list, (bed, env, dnsServer) => measureOne(bed, env, dnsServer, verifier));
    } else {
      await withBed(server, ip, relayIp, rttMs, list, async (bed, env, dnsServer) => {
        for (const verifier of verifiers) await measureOne(bed, env, dnsServer, verifier);
      });
    }
  }
  return runs;
}

/** `presend check` at a stock Postfix: a domain whose every address is gone against as many addresses that exist. */
async function unknownDomainAtPostfix(): Promise<{ knownMs: number; unknownMs: number; limitHits: number; right: boolean }> {
  const known = postfixList({ perDomain: UNKNOWN_DOMAIN_SIZE, unknownShare: 0, seed: 61, domains: ['kept.test'] });
  const gone = postfixList({ perDomain: UNKNOWN_DOMAIN_SIZE, unknownShare: 1, seed: 62, domains: ['gone.test'] });
  // Role accounts always exist in these lists; the gone domain has none.
  for (const address of [...gone.existing]) gone.existing.delete(address);
  const both: RealMtaList = { domains: [...known.domains, ...gone.domains], addresses: [...known.addresses, ...gone.addresses], existing: known.existing };
  return withBed(SERVERS[0] as Server, '127.0.89.2', '127.0.89.3', 0, both, async (bed, env) => {
    // Interleaved (known, gone, gone, known, …) so that a drift of the machine's load falls on both alike.
    const runs = { known: [] as number[], gone: [] as number[] };
    let right = true;
    await bed.settle();
    const from = bed.limitLines().length;
    for (let pass = 0; pass < UNKNOWN_DOMAIN_RUNS; pass++) {
      for (const side of pass % 2 === 0 ? (['known', 'gone'] as const) : (['gone', 'known'] as const)) {
        const list = side === 'known' ? known : gone;
        const outcome = await presendCheck(list.addresses, env, PRESEND_CAP_MS);
        await bed.settle();
        runs[side].push(outcome.ms);
        right &&= list.addresses.every((a) => outcome.verdicts[a] === truthOf(both, a));
      }
    }
    return { knownMs: median(runs.known), unknownMs: median(runs.gone), limitHits: bed.limitLines().length - from, right };
  });
}

export async function realmtaBench(): Promise<Section> {
  // `presend check` runs from dist/: built from this tree first, so the figures are this code's.
  execFileSync('npm', ['run', 'build', '--silent'], { cwd: ROOT, stdio: 'inherit' });
  const list = postfixList(LIST);
  const truth: Record<string, PublicVerdict> = Object.fromEntries(list.addresses.map((a) => [a, truthOf(list, a)]));
  const runs: Run[] = [];
  const notRun: string[] = [];
  for (const [index, server] of SERVERS.entries()) {
    const unavailable = server.unavailable();
    if (unavailable) {
      notRun.push(`${server.key}: ${unavailable}`);
      note(`${server.key} skipped: ${unavailable}`);
      continue;
    }
    runs.push(...(await measureServer(server, index + 1, list, truth)));
  }
  const postfixUnknown = postfixUnavailable() ? null : await unknownDomainAtPostfix();
  if (postfixUnknown) note(`Postfix, ${UNKNOWN_DOMAIN_SIZE} known vs ${UNKNOWN_DOMAIN_SIZE} at a gone domain: ${fmt(postfixUnknown.knownMs)} vs ${fmt(postfixUnknown.unknownMs)} ms`);

  const summary: SummaryRow[] = [];
  const presendRuns = runs.filter((r) => r.name.startsWith('Presend'));
  for (const p of presendRuns) {
    const met = p.finished && p.accuracy === 1 && p.limitHits === 0;
    const gaps = [!p.finished ? `not finished in ${PRESEND_CAP_MS / 1000} s` : '', p.finished && p.accuracy < 1 ? `accuracy ${pct(p.accuracy, 2)}` : '', p.limitHits > 0 ? `${p.limitHits} limit hits` : ''].filter(Boolean);
    summary.push({
      figure: `${p.server}, ${p.rttMs} ms: \`presend check\` accuracy and limit hits`,
      measured: p.finished ? `${pct(p.accuracy)} right, ${p.limitHits} limit hits, ${fmt(p.perSecond, 1)} addresses/s` : `not finished in ${PRESEND_CAP_MS / 1000} s, ${p.limitHits} limit hits`,
      target: '100 % right, 0 limit hits',
      met,
      ...(met ? {} : { gap: gaps.join('; ') }),
    });
  }
  for (const p of presendRuns.filter((r) => r.rttMs === 80)) {
    const others = runs.filter((r) => r.server === p.server && r.rttMs === 80 && !r.name.startsWith('Presend'));
    const fastest = others.reduce<Run | undefined>((a, b) => (!a || b.perSecond > a.perSecond ? b : a), undefined);
    if (!fastest) continue;
    const ratio = p.finished ? p.perSecond / fastest.perSecond : 0;
    const row = targetRow(`${p.server}, 80 ms: \`presend check\` vs the faster npm verifier`, `${fmt(ratio, 2)}× (${fmt(p.perSecond, 1)} vs ${fmt(fastest.perSecond, 1)} addresses/s, ${fastest.name})`, ratio, 'at least', TARGET_SPEEDUP_AT_80, '×', 1);
    if (!p.finished) row.gap = `not finished in ${PRESEND_CAP_MS / 1000} s`;
    summary.push(row);
  }
  const haraka = presendRuns.find((r) => r.server.startsWith('Haraka') && r.rttMs === 0);
  if (haraka) {
    const seconds = haraka.finished ? haraka.ms / 1000 : Number.POSITIVE_INFINITY;
    const row = targetRow(`Haraka with karma: ${list.addresses.length} addresses (25 % unknown) by \`presend check\``, haraka.finished ? `${fmt(seconds)} s` : `not finished in ${PRESEND_CAP_MS / 1000} s`, haraka.finished ? seconds : PRESEND_CAP_MS / 1000, 'at most', HARAKA_TARGET_S, ' s');
    if (!haraka.finished) {
      row.met = false;
      row.gap = `not finished: over by more than ${fmt(PRESEND_CAP_MS / 1000 - HARAKA_TARGET_S)} s`;
    }
    summary.push(row);
  }
  if (postfixUnknown) {
    const ratio = postfixUnknown.unknownMs / postfixUnknown.knownMs;
    const row = targetRow(
      `Postfix (stock): ${UNKNOWN_DOMAIN_SIZE} addresses of a 100 %-unknown domain vs ${UNKNOWN_DOMAIN_SIZE} known, \`presend check\` wall time`,
      `${fmt(ratio, 2)}× (${fmt(postfixUnknown.unknownMs)} vs ${fmt(postfixUnknown.knownMs)} ms); limit hits ${postfixUnknown.limitHits}; verdicts ${postfixUnknown.right ? 'all right' : 'NOT all right'}`,
      ratio,
      'at most',
      1,
      '×',
      2,
    );
    summary.push(row);
  }

  const unknown = list.addresses.filter((a) => truth[a] === 'UNDELIVERABLE_NO_MAILBOX').length;
  const body = [
    `The real-MTA test bed (test/realmta/README.md: each server's defences, stock or the admins' usual), one private instance per server and round trip. ` +
      `The list (test/realmta/lists.ts, seed ${LIST.seed}): ${fmt(list.addresses.length)} addresses over ${list.domains.length} domains whose MX is the server, ${fmt(unknown)} unknown (${pct(unknown / list.addresses.length)}), role accounts that exist. ` +
      `Every verifier reaches the server through the bed's latency relay on port 25 of its own address (0 ms, or 40 ms each way = 80 ms round trip), since the npm verifiers dial port 25 only. ` +
      `Presend: \`node dist/cli/main.js check --json <400 addresses>\` as a process with the list's DNS in its environment (PRESEND_DNS_SERVERS …, PRESEND_SMTP_PORT=25), dist built from this tree at the start; wall time of the process (start-up included), median of ${PRESEND_RUNS} runs (1 at Haraka), stopped after ${PRESEND_CAP_MS / 1000} s. ` +
      `The npm verifiers: compare-child.ts (benchmark 2's driver), as many checks (each an SMTP session) at once as the server lets one client hold, at most 10 (Haraka 3); they may start checks for ${OTHERS_BUDGET_MS / 1000} s, addresses/s is what they finished over their wall time. Presend runs with its defaults. ` +
      `Limit hits: the lines of the server's own log that say a limit or defence was set off while the verifier ran (each bed's limitLines(): Postfix "too many errors/connections"; Exim "delayed unknown recipient", "too many …"; OpenSMTPD bad-input, "Too many"; Haraka limit's refusals). ` +
      `At Haraka each verifier gets a fresh server (karma remembers clients); "karma" counts the sessions karma penalised (score below 0: every later reply held 1 s), which no verifier can avoid entirely.`,
    '',
    table(
      ['server', 'round trip', 'verifier', 'addresses checked', 'wall time', 'addresses/s', 'matches truth', 'limit hits', 'karma', 'mismatches (truth→theirs)'],
      runs.map((r) => [
        r.server,
        `${r.rttMs} ms`,
        `${r.name} ${r.version}`,
        fmt(r.checked),
        r.finished ? `${fmt(r.ms)} ms` : `> ${fmt(PRESEND_CAP_MS)} ms (stopped)`,
        r.finished ? fmt(r.perSecond, 1) : 'n/a',
        r.finished ? pct(r.accuracy) : 'n/a',
        String(r.limitHits),
        r.karmaSessions === null ? '—' : String(r.karmaSessions),
        r.misses,
      ]),
    ),
    '',
    postfixUnknown
      ? `A 100 %-unknown domain at a stock Postfix: \`presend check\` over ${UNKNOWN_DOMAIN_SIZE} addresses of gone.test (none exists) took ${fmt(postfixUnknown.unknownMs)} ms, over ${UNKNOWN_DOMAIN_SIZE} addresses of kept.test (all exist) ${fmt(postfixUnknown.knownMs)} ms (medians of ${UNKNOWN_DOMAIN_RUNS} runs each, interleaved, same Postfix, 0 ms); Postfix logged ${postfixUnknown.limitHits} limit lines.`
      : 'The 100 %-unknown-domain comparison needs Postfix, which is not installed here.',
    ...(notRun.length > 0 ? ['', `Not run on this machine: ${notRun.join('; ')}.`] : []),
  ].join('\n');
  return { id: ID, title: TITLE, body, summary };
}
