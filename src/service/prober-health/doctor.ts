/**
 * `presend doctor` (issue 22): every check of the prober's health, for each egress route,
 * in one report. `cheapChecks` is the part that opens no SMTP session and queries only DNS,
 * for /readyz and the worker's start-up log.
 *
 * Egress routes: those of PRESEND_EGRESS, else the one of PRESEND_SMTP_PROXY (`proxy`) or
 * none (`direct`) with PRESEND_HELO_NAME. PRESEND_EGRESS_IP names the egress of a single route;
 * with several, each route's address is learned from the canary (or is its public source).
 */
import { isIP } from 'node:net';
import { missingProbeIdentity, type PresendConfig } from '../../config.js';
import { createDiagnosticDnsClient, type DiagnosticDnsClient } from '../../core/dns/resolver.js';
import { parseProxyUrl } from '../../core/smtp/connect.js';
import { isPrivateAddress } from '../../core/dns/address-safety.js';
import type { RecentProbeResult } from '../../store/roles/prober-replies.js';
import { talkToCanary, type CanaryTarget } from './canary.js';
import { failed, healthExitCode, warned, overallHealth, type HealthCheck, type OverallHealth } from './health-check.js';
import { replyHistoryChecks } from './reply-history.js';
import { routePauseCheck } from './route-pause-checks.js';
import type { RoutePause } from '../../core/egress/route-pause.js';
import { resolverCheck } from './resolver-check.js';
import { blocklistChecks, heloResolvesCheck, learnEgress, port25Check, ptrChecks, shownProxy, type EgressRoute } from './route-checks.js';
import { senderDomainCheck, senderDomainOf, spfCheck } from './sender-checks.js';

export type DoctorConfig = Pick<
  PresendConfig,
  'heloName' | 'mailFrom' | 'smtpProxy' | 'canaryMx' | 'egressIp' | 'dnsbls' | 'dnsServers' | 'dnsTimeoutMs' | 'smtpTimeoutMs' | 'smtpPort' | 'egress'
>;

export interface DoctorDeps {
  dns?: DiagnosticDnsClient;
  /** Recent live results (the store's); absent: the reply history is not checked. */
  recentResults?: (since: Date) => Promise<RecentProbeResult[]>;
  /** The route pauses the workers hold (the store's on PostgreSQL); absent: not shown. */
  routePauses?: () => Promise<RoutePause[]>;
  now?: () => Date;
}

export interface DoctorReport {
  health: OverallHealth;
  exitCode: 0 | 1 | 2;
  checkedAt: string;
  routes: Array<{ name: string; proxy: string | null; heloName: string; egressIp: string | null; egressSource: string | null }>;
  canary: CanaryTarget | null;
  checks: HealthCheck[];
}

/** How far back the reply history looks. */
export const HISTORY_WINDOW_HOURS = 24;

export function egressRoutes(config: DoctorConfig): EgressRoute[] {
  return config.egress;
}

/** The egress address known without a session: PRESEND_EGRESS_IP of a single route, else a route's public source address. */
function knownEgress(config: DoctorConfig, route: EgressRoute): string | null {
  if (config.egress.length === 1 && config.egressIp) return config.egressIp;
  return route.source !== null && !isPrivateAddress(route.source) ? route.source : null;
}

function dnsOf(config: DoctorConfig, deps: DoctorDeps): DiagnosticDnsClient {
  return deps.dns ?? createDiagnosticDnsClient({ servers: config.dnsServers, timeoutMs: config.dnsTimeoutMs });
}

function identityChecks(config: DoctorConfig): HealthCheck[] {
  const missing = missingProbeIdentity(config);
  if (missing.length === 0) return [];
  return [
    failed(null, {
      id: 'probe_identity',
      impact: 'broken',
      summary: `not set: ${missing.join(', ')}`,
      meaning: 'Live checks are off: without a HELO name and an envelope sender of yours, a probe would look like a spam bot.',
      action: `Set ${missing.join(' and ')} (docs/deploy.md, "Is my prober healthy?").`,
    }),
  ];
}

async function addressOf(dns: DiagnosticDnsClient, host: string): Promise<string | null> {
  if (isIP(host) !== 0) return host;
  const a = await dns.a(host);
  if (a.ok && a.records[0] !== undefined) return a.records[0];
  const aaaa = await dns.aaaa(host);
  return aaaa.ok ? (aaaa.records[0] ?? null) : null;
}

/** PRESEND_CANARY_MX, else the most preferred MX of PRESEND_MAIL_FROM's domain that has an address. */
async function findCanary(config: DoctorConfig, dns: DiagnosticDnsClient): Promise<{ target: CanaryTarget } | { check: HealthCheck }> {
  const none = (summary: string, action: string): { check: HealthCheck } => ({
    check: failed(null, { id: 'canary', impact: 'broken', summary, meaning: 'Without a mail server to talk to, the doctor cannot see whether port 25 gets out.', action }),
  });
  if (config.canaryMx) {
    const ip = await addressOf(dns, config.canaryMx);
    if (ip === null) return none(`PRESEND_CANARY_MX ${config.canaryMx} has no address`, 'Set PRESEND_CANARY_MX to a mail server that resolves.');
    return { target: { host: config.canaryMx, ip, port: config.smtpPort } };
  }
  if (!config.mailFrom) return none('no canary: neither PRESEND_CANARY_MX nor PRESEND_MAIL_FROM is set', 'Set PRESEND_MAIL_FROM (its domain\'s MX is the canary) or PRESEND_CANARY_MX.');
  const domain = senderDomainOf(config.mailFrom);
  const mx = await dns.mx(domain);
  const hosts = mx.ok ? [...mx.records].sort((a, b) => a.priority - b.priority).map((r) => r.exchange).filter((h) => h !== '' && h !== '.') : [];
  for (const host of hosts) {
    const ip = await addressOf(dns, host);
    if (ip !== null) return { target: { host, ip, port: config.smtpPort } };
  }
  return none(`no canary: ${domain} has no MX host with an address`, 'Set PRESEND_CANARY_MX to a mail server you know accepts connections (your own MX is a good one).');
}

async function routeChecks(config: DoctorConfig, route: EgressRoute, canary: CanaryTarget | null, dns: DiagnosticDnsClient): Promise<{ checks: HealthCheck[]; egressIp: string | null; egressSource: string | null }> {
  const checks: HealthCheck[] = [];
  const session = canary
    ? await talkToCanary(canary, route.heloName, route.proxy ? parseProxyUrl(route.proxy) : null, config.smtpTimeoutMs, route.source)
    : ({ kind: 'no_banner', detail: 'no canary' } as const);
  if (canary) checks.push(port25Check(route, canary, session, config.smtpTimeoutMs));
  const egress = learnEgress(route, knownEgress(config, route), session);
  checks.push(egress.check);
  checks.push(...(await addressChecks(config, route, egress.ip, dns)));
  return { checks, egressIp: egress.ip, egressSource: egress.source };
}

/** What the egress address and the HELO name look like in DNS: PTR, HELO, SPF, blocklists (DNS queries only). */
async function addressChecks(config: DoctorConfig, route: EgressRoute, ip: string | null, dns: DiagnosticDnsClient): Promise<HealthCheck[]> {
  const checks: HealthCheck[] = [];
  if (ip !== null) checks.push(...(await ptrChecks(route, ip, dns)));
  checks.push(await heloResolvesCheck(route, dns));
  if (ip !== null && config.mailFrom) checks.push(await spfCheck(route, ip, senderDomainOf(config.mailFrom), dns));
  if (ip !== null) checks.push(...(await blocklistChecks(route, ip, config.dnsbls, dns)));
  return checks;
}

async function globalChecks(config: DoctorConfig, dns: DiagnosticDnsClient): Promise<HealthCheck[]> {
  const domain = config.mailFrom ? senderDomainOf(config.mailFrom) : null;
  const checks = [...identityChecks(config), await resolverCheck(dns, config.dnsServers, domain ?? config.heloName ?? 'example.com')];
  if (domain !== null) checks.push(await senderDomainCheck(domain, dns));
  return checks;
}

async function historyChecks(route: string, recentResults: NonNullable<DoctorDeps['recentResults']>, now: Date): Promise<HealthCheck[]> {
  const since = new Date(now.getTime() - HISTORY_WINDOW_HOURS * 3_600_000);
  try {
    return replyHistoryChecks(route, await recentResults(since), HISTORY_WINDOW_HOURS);
  } catch (error) {
    return [
      warned(route, {
        id: 'replies',
        impact: 'degraded',
        summary: `recent results could not be read from the store: ${error instanceof Error ? error.message : String(error)}`,
        meaning: 'How providers answered recently is unknown.',
        action: 'Run the doctor with the store the service uses (PRESEND_DATABASE_URL or --database), or with --no-history.',
      }),
    ];
  }
}

function report(checks: HealthCheck[], routes: DoctorReport['routes'], canary: CanaryTarget | null, now: Date): DoctorReport {
  const health = overallHealth(checks);
  return { health, exitCode: healthExitCode(health), checkedAt: now.toISOString(), routes, canary, checks };
}

export async function runDoctor(config: DoctorConfig, deps: DoctorDeps = {}): Promise<DoctorReport> {
  const dns = dnsOf(config, deps);
  const now = deps.now?.() ?? new Date();
  const checks = await globalChecks(config, dns);
  const routes = egressRoutes(config);
  const found = routes.length > 0 ? await findCanary(config, dns) : null;
  const canary = found && 'target' in found ? found.target : null;
  if (found && 'check' in found) checks.push(found.check);
  const described: DoctorReport['routes'] = [];
  const pauses = deps.routePauses ? await deps.routePauses() : null;
  for (const route of routes) {
    const result = await routeChecks(config, route, canary, dns);
    checks.push(...result.checks);
    described.push({ name: route.name, proxy: route.proxy ? shownProxy(route.proxy) : null, heloName: route.heloName, egressIp: result.egressIp, egressSource: result.egressSource });
    if (deps.recentResults) checks.push(...(await historyChecks(route.name, deps.recentResults, now)));
    if (pauses) checks.push(routePauseCheck(route.name, pauses, now));
  }
  return report(checks, described, canary, now);
}

/**
 * The checks that open no SMTP session: the resolver, the probe identity, the sender's domain,
 * the HELO name, and — when the egress address is known (PRESEND_EGRESS_IP, a public source
 * address of a route) — its PTR, SPF and blocklists.
 */
export async function cheapChecks(config: DoctorConfig, deps: DoctorDeps = {}): Promise<DoctorReport> {
  const dns = dnsOf(config, deps);
  const checks = await globalChecks(config, dns);
  const described: DoctorReport['routes'] = [];
  for (const route of egressRoutes(config)) {
    const ip = knownEgress(config, route);
    checks.push(...(await addressChecks(config, route, ip, dns)));
    described.push({ name: route.name, proxy: route.proxy ? shownProxy(route.proxy) : null, heloName: route.heloName, egressIp: ip, egressSource: ip ? 'setting' : null });
  }
  return report(checks, described, null, deps.now?.() ?? new Date());
}
