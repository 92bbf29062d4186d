/**
 * One verifier of benchmark 2 in its own process: Presend's engine, deep-email-validator or
 * email-deep-validator, pointed at the mail world through Node's DNS settings.
 *
 * The world is handed over the way a machine's resolver would be: `dns.setServers([...])`, and
 * `dns.lookup` (getaddrinfo, which `net.connect(25, mxName)` uses and which knows nothing of
 * setServers) answered from the same server with `dns.resolve4` — standing in for an
 * /etc/resolv.conf that points at the world.
 *
 * Politeness for the others matches Presend's: at most `perDomain` checks (each one SMTP
 * session) at once per domain, every domain at once. Checks start only within `budgetMs`;
 * what started is finished and counted.
 *
 * The parent may send several jobs (passes) to one process: Presend's first pass in a fresh
 * process pays for JIT warm-up, which the others amortise over their much longer runs.
 */
import dns from 'node:dns';
import { createRequire } from 'node:module';
import { loadConfig } from '../src/config.js';
import { createEngine } from '../src/core/index.js';
import type { PublicVerdict } from '../src/core/types.js';
import { mapDeepEmailValidator, mapEmailDeepValidator, type DeepEmailValidatorOutput, type EmailDeepValidatorOutput } from './verdict-mapping.js';

export interface CompareJob {
  verifier: 'presend' | 'deep-email-validator' | 'email-deep-validator';
  dnsServer: string;
  env: Record<string, string>;
  addresses: string[];
  perDomain: number;
  /** At most this many checks at once in all, instead of `perDomain` per domain: one MX host serves every domain (bench/postfix.ts). */
  lanes?: number;
  budgetMs: number;
}

export interface CompareOutcome {
  ms: number;
  verdicts: Record<string, PublicVerdict>;
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address?: string | dns.LookupAddress[], family?: number) => void;

function pointDnsAt(server: string): void {
  dns.setServers([server]);
  const lookup = (host: string, options: dns.LookupOptions | LookupCallback, callback?: LookupCallback): void => {
    const done = (typeof options === 'function' ? options : callback) as LookupCallback;
    const all = typeof options === 'object' && options.all === true;
    dns.resolve4(host, (error, addresses) => {
      if (error || !addresses[0]) return done(error ?? Object.assign(new Error(`no address for ${host}`), { code: 'ENOTFOUND' }));
      if (all) done(null, addresses.map((address) => ({ address, family: 4 })));
      else done(null, addresses[0], 4);
    });
  };
  (dns as unknown as { lookup: typeof lookup }).lookup = lookup;
}

const require = createRequire(import.meta.url);

function checkerFor(verifier: CompareJob['verifier']): (address: string) => Promise<PublicVerdict> {
  if (verifier === 'deep-email-validator') {
    const { validate } = require('deep-email-validator') as { validate: (o: object) => Promise<DeepEmailValidatorOutput> };
    // `.test` is the world's TLD: without it mailcheck "corrects" every domain to `.net`.
    return async (email) => mapDeepEmailValidator(await validate({ email, additionalTopLevelDomains: ['test'] }));
  }
  const EmailValidator = require('email-deep-validator') as new (o?: object) => { verify(a: string): Promise<EmailDeepValidatorOutput> };
  const validator = new EmailValidator();
  return async (email) => mapEmailDeepValidator(await validator.verify(email));
}

async function runOthers(job: CompareJob): Promise<CompareOutcome> {
  const check = checkerFor(job.verifier);
  const byDomain = new Map<string, string[]>();
  for (const address of job.addresses) {
    const domain = address.slice(address.lastIndexOf('@') + 1);
    byDomain.set(domain, [...(byDomain.get(domain) ?? []), address]);
  }
  const verdicts: Record<string, PublicVerdict> = {};
  const started = performance.now();
  const lane = async (queue: string[]): Promise<void> => {
    for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
      if (performance.now() - started > job.budgetMs) return;
      verdicts[next] = await check(next).catch(() => 'UNKNOWN' as const);
    }
  };
  if (job.lanes !== undefined) {
    const queue = [...job.addresses];
    await Promise.all(Array.from({ length: job.lanes }, () => lane(queue)));
  } else await Promise.all([...byDomain.values()].flatMap((queue) => Array.from({ length: job.perDomain }, () => lane(queue))));
  return { ms: performance.now() - started, verdicts };
}

async function runPresend(job: CompareJob): Promise<CompareOutcome> {
  const engine = createEngine(loadConfig(job.env));
  const verdicts: Record<string, PublicVerdict> = {};
  const started = performance.now();
  await engine.verifyMany(job.addresses, (result) => {
    verdicts[result.email] = result.envelope.verdict ?? 'UNKNOWN';
  });
  const ms = performance.now() - started;
  await engine.close();
  return { ms, verdicts };
}

// One job per message, answered in order; the parent runs several passes in one process
// (the first one cold, the next ones with a warm JIT) and disconnects when done.
let pointed = false;
process.on('message', (job: CompareJob) => {
  if (!pointed) pointDnsAt(job.dnsServer);
  pointed = true;
  const run = job.verifier === 'presend' ? runPresend(job) : runOthers(job);
  void run.then((outcome) => process.send?.(outcome));
});
process.on('disconnect', () => process.exit(0));
