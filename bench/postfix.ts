/**
 * Benchmark 6: one list through Debian's Postfix with its stock defences (the real-MTA test
 * bed, test/realmta/postfix-bed.ts), by Presend's engine and the two npm verifiers of
 * benchmark 2, each in its own process (compare-child.ts) at the same concurrency. Their SMTP
 * client is hard-wired to port 25, so this Postfix listens on 127.0.77.25:25 (root, as the bed
 * needs anyway). Reported per verifier: addresses/s, accuracy against the recipient table, and
 * the limits Postfix logged while it ran ("too many errors", "too many connections", …).
 */
import { execFileSync } from 'node:child_process';
import type { PublicVerdict } from '../src/core/types.js';
import { listDns, postfixList, truthOf } from '../test/realmta/lists.js';
import { postfixUnavailable, startPostfix, type PostfixBed } from '../test/realmta/postfix-bed.js';
import { runChild, score, versionOf, type Scored } from './compare.js';
import type { CompareJob } from './compare-child.js';
import { table, type Section, type SummaryRow } from './section.js';
import { fmt, pct } from './stats.js';

const ID = 'postfix';
const TITLE = '6. Real Postfix (stock defences)';
const IP = '127.0.77.25';
/**
 * Checks (each an SMTP session for the npm verifiers) at once, the same for every verifier:
 * Presend's default sessions per MX host (2), and 10 — what one client may hold at many MX
 * hosts (Postfix's own default allows 50, smtpd_client_connection_count_limit).
 */
const CONCURRENCY = [2, 10];
const PRESEND_PASSES = 3;
const OTHERS_BUDGET_MS = 120_000;
const DOMAINS = ['alpha.test', 'beta.test', 'gamma.test', 'delta.test'];
const PER_DOMAIN = 500;
const UNKNOWN_SHARE = 0.25;
/**
 * Postfix's inflow control: each new queue file (smtpd opens one per transaction, at its first
 * accepted RCPT) takes a token that the queue manager gives back once the message moves on;
 * with none left, smtpd waits in_flow_delay (1 s) first. A live MX delivering mail keeps its
 * tokens; this bed never delivers anything (no probe sends DATA), so after its first few hundred
 * transactions every verifier would be held to one transaction per second per smtpd process —
 * measured here: Presend 13–19 addresses/s instead of ~2,800. Turned off, so what is measured is
 * the error and connection limits, not a bed that never drains.
 */
const IN_FLOW_DELAY = '0s';

interface Run extends Scored {
  lanes: number;
  limitHits: number;
  limitKinds: string;
}

function skipped(reason: string): Section {
  return {
    id: ID,
    title: TITLE,
    body: `Not run on this machine: ${reason}.`,
    summary: [{ figure: 'real Postfix: Presend vs the faster npm verifier', measured: `not run (${reason})`, target: '≥ 1× at 100 % accuracy, 0 limit hits', met: null }],
  };
}

/** Limit lines Postfix logged since `from` (an index into limitLines()), by kind. */
function hitsSince(bed: PostfixBed, from: number): { count: number; kinds: string } {
  const lines = bed.limitLines().slice(from);
  const kinds = new Map<string, number>();
  for (const line of lines) {
    const kind = /too many errors/i.test(line) ? 'too many errors' : /too many connections|concurrency/i.test(line) ? 'too many connections' : 'connection rate';
    kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
  }
  return { count: lines.length, kinds: [...kinds].map(([k, n]) => `${k} ×${n}`).join(', ') || 'none' };
}

export async function postfixBench(): Promise<Section> {
  const unavailable = postfixUnavailable();
  if (unavailable) {
    process.stdout.write(`  skipped: ${unavailable}\n`);
    return skipped(unavailable);
  }
  const list = postfixList({ perDomain: PER_DOMAIN, unknownShare: UNKNOWN_SHARE, seed: 6, domains: DOMAINS });
  const truth: Record<string, PublicVerdict> = Object.fromEntries(list.addresses.map((a) => [a, truthOf(list, a)]));
  const bed = await startPostfix({ ip: IP, port: 25, domains: list.domains, recipients: [...list.existing], mainCf: [`in_flow_delay = ${IN_FLOW_DELAY}`] });
  const dns = await listDns(list, bed.ip);
  const runs: Run[] = [];
  try {
    const job = (verifier: CompareJob['verifier'], lanes: number): CompareJob => ({
      verifier,
      dnsServer: `${dns.dns.host}:${dns.dns.port}`,
      env: { ...dns.env(), PRESEND_SMTP_PORT: '25', PRESEND_MAX_SESSIONS_PER_MX: String(lanes) },
      addresses: list.addresses,
      perDomain: lanes,
      lanes,
      budgetMs: OTHERS_BUDGET_MS,
    });
    // Each verifier's limit hits are the lines Postfix logged between its first pass and its last.
    const measure = async (name: string, version: string, lanes: number, jobs: CompareJob[], coldPasses: number): Promise<void> => {
      await bed.settle();
      const from = bed.limitLines().length;
      const outcomes = await runChild(jobs, () => bed.settle());
      await bed.settle();
      const hits = hitsSince(bed, from);
      const run: Run = { ...score(name, version, outcomes.slice(coldPasses), truth), lanes, limitHits: hits.count, limitKinds: hits.kinds };
      runs.push(run);
      process.stdout.write(`  ${lanes} at once, ${name}: ${fmt(run.perSecond)} addresses/s, ${pct(run.accuracy)} right, limit hits ${hits.kinds}\n`);
    };
    for (const lanes of CONCURRENCY) {
      // Presend: a cold pass (JIT warm-up), then the measured ones, each with a new engine.
      await measure('Presend engine', versionOf('../'), lanes, Array.from({ length: PRESEND_PASSES + 1 }, () => job('presend', lanes)), 1);
      for (const name of ['deep-email-validator', 'email-deep-validator'] as const) await measure(name, versionOf(name), lanes, [job(name, lanes)], 0);
    }
  } finally {
    await dns.close();
    await bed.stop();
  }
  const summary: SummaryRow[] = CONCURRENCY.map((lanes) => {
    const [presend, ...others] = runs.filter((r) => r.lanes === lanes);
    if (!presend || others.length === 0) throw new Error(`no runs at ${lanes} at once`);
    const fastest = others.reduce((a, b) => (b.perSecond > a.perSecond ? b : a));
    const ratio = presend.perSecond / fastest.perSecond;
    const met = ratio >= 1 && presend.accuracy === 1 && presend.limitHits === 0;
    const gaps = [ratio < 1 ? `${fmt(ratio, 2)}× the speed of ${fastest.name}` : '', presend.accuracy < 1 ? `accuracy ${pct(presend.accuracy, 2)}` : '', presend.limitHits > 0 ? `${presend.limitHits} limit hits` : ''].filter(Boolean);
    return {
      figure: `real Postfix, ${lanes} sessions at once: Presend vs the faster npm verifier`,
      measured: `${fmt(ratio, 2)}× (${fmt(presend.perSecond)} vs ${fmt(fastest.perSecond)} addresses/s, ${fastest.name}); accuracy ${pct(presend.accuracy)} vs ${pct(fastest.accuracy)}; limit hits ${presend.limitHits} vs ${fastest.limitHits}`,
      target: '≥ 1× at 100 % accuracy, 0 limit hits',
      met,
      ...(met ? {} : { gap: gaps.join('; ') }),
    };
  });
  const roles = list.addresses.filter((a) => truth[a] === 'ROLE').length;
  const unknown = list.addresses.filter((a) => truth[a] === 'UNDELIVERABLE_NO_MAILBOX').length;
  const body = [
    `Debian's ${postfixVersion()} with its stock smtpd limits, started by the real-MTA test bed (test/realmta/postfix-bed.ts) on ${IP}:25: a recipient table, ` +
      `"550 5.1.1 … User unknown in relay recipient table" for the rest, the prober a stranger to \`mynetworks\` (so the client limits apply), nothing ever accepted for delivery. ` +
      `The list (test/realmta/lists.ts, seed 6): ${fmt(list.addresses.length)} addresses over ${list.domains.length} domains whose MX is that Postfix, ${fmt(unknown)} unknown (${pct(unknown / list.addresses.length)}), ${roles} role accounts that exist. ` +
      `Same concurrency for all, in two rounds: at most ${CONCURRENCY.join(', then ')} checks at once (for the npm verifiers each check is one SMTP session), Presend with \`PRESEND_MAX_SESSIONS_PER_MX\` set to the same (${CONCURRENCY[0]} is its default). ` +
      `Presend: ${PRESEND_PASSES + 1} passes in one process, each with a new engine (nothing learnt carried over); the figure is the median of the ${PRESEND_PASSES} after the cold first one, its limit hits those of all ${PRESEND_PASSES + 1}. ` +
      `Limit hits are the lines Postfix logged while the verifier ran: "too many errors" (smtpd_hard_error_limit, 20), "too many connections", connection rate limits. ` +
      `One setting differs from stock: \`in_flow_delay = ${IN_FLOW_DELAY}\`. Postfix makes smtpd wait 1 s before each new queue file once the queue manager has no tokens to give back, and tokens come back only with mail that moves on: ` +
      `this bed never takes a message, so after a few hundred transactions every verifier would be held to one accepted transaction per second per smtpd process (Presend measured 13–19 addresses/s that way, against ~2,800 without it); a live MX that delivers mail keeps its tokens.`,
    '',
    table(
      ['at once', 'verifier', 'addresses checked', 'wall time', 'addresses/s', 'matches truth', 'Postfix limit hits', 'mismatches (truth→theirs)'],
      runs.map((r) => [String(r.lanes), `${r.name} ${r.version}`, fmt(r.checked), `${fmt(r.ms)} ms`, fmt(r.perSecond), pct(r.accuracy), r.limitKinds, r.misses]),
    ),
    '',
    'Neither npm verifier reports role accounts, so the role rows cannot match for them (see benchmark 2 for the mapping of their outputs).',
  ].join('\n');
  return { id: ID, title: TITLE, body, summary };
}

function postfixVersion(): string {
  try {
    return `Postfix ${execFileSync('/usr/sbin/postconf', ['-dh', 'mail_version']).toString().trim()}`;
  } catch {
    return 'Postfix, version unknown';
  }
}
