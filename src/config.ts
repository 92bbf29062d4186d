/**
 * Configuration (docs/design.md §2): every setting of a Presend process, parsed and validated once
 * at start-up from the environment and passed down as options. This is the only module that
 * reads `process.env`. CLI flags override by giving variables (`loadConfig(env, { PRESEND_PORT:
 * flags.port })`), so a flag goes through the same validation as its variable. A bad value
 * stops start-up with a ConfigError that names the variable.
 */
import { isIP } from 'node:net';
import { hostname } from 'node:os';
import { parsePrivateMxAllowance, type PrivateMxAllowance } from './core/dns/address-safety.js';
import { heloNameProblem } from './core/helo-name.js';
import { DEFAULT_TABLE_LIMITS, MB, type TableLimits } from './files/limits.js';
import { DEFAULT_SIGNATURE_MAX_AGE_S } from './feedback/providers/signed-time.js';
import { DEFAULT_FEEDBACK_EVENTS_RETENTION_DAYS } from './feedback/event-retention.js';
import { parseEgressRoutes, type EgressRoute } from './core/egress/egress-routes.js';
import type { EngineSettings } from './core/engine-config.js';
import type { HostPort } from './core/dns/resolver.js';
import { readFileSync } from 'node:fs';

export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    message: string,
  ) {
    super(`${variable}: ${message}`);
    this.name = 'ConfigError';
  }
}

export type { HostPort };

/**
 * Every setting. The engine's own (DNS servers, SMTP port, HELO name, MAIL FROM, proxy, egress
 * routes, timeouts, sessions per MX) are declared by the engine (src/core/engine-config.ts,
 * EngineSettings) and read from PRESEND_DNS_SERVERS, PRESEND_SMTP_PORT, PRESEND_ALLOW_PRIVATE_MX,
 * PRESEND_HELO_NAME, PRESEND_MAIL_FROM, PRESEND_SMTP_PROXY, PRESEND_EGRESS, PRESEND_RECHECK_DELAY_MS,
 * PRESEND_MAX_SESSIONS_PER_MX, PRESEND_SMTP_TIMEOUT_MS and PRESEND_DNS_TIMEOUT_MS (loadConfig below).
 */
export interface PresendConfig extends EngineSettings {
  databaseUrl: string;
  host: string;
  port: number;
  /**
   * Webhook endpoints on loopback/private/link-local addresses (PRESEND_ALLOW_PRIVATE_WEBHOOKS):
   * false (refused, the default), 'loopback' or true, as allowPrivateMx — an owner chooses the URL,
   * so without it anyone with an account could make the service POST into its own network.
   */
  allowPrivateWebhooks: PrivateMxAllowance;
  /** One webhook attempt's deadline, connection to answer (PRESEND_WEBHOOK_TIMEOUT_MS). */
  webhookTimeoutMs: number;
  /** How often an idle webhook sender looks for due deliveries (PRESEND_WEBHOOK_POLL_MS). */
  webhookPollMs: number;
  /**
   * The mail server `presend doctor` connects to on port 25 to see that probes get out
   * (PRESEND_CANARY_MX, a host name or address); null: the MX of PRESEND_MAIL_FROM's domain.
   */
  canaryMx: string | null;
  /**
   * The public address probes leave from, when the prober cannot learn it itself (a NAT, a
   * proxy that hides it) (PRESEND_EGRESS_IP); null: learned from the canary's greeting.
   */
  egressIp: string | null;
  /** DNS blocklist zones the doctor looks the egress address up in (PRESEND_DNSBLS; `none` for none). */
  dnsbls: string[];
  /**
   * The same delay for sandbox keys (PRESEND_SANDBOX_RECHECK_DELAY_MS): the sandbox's `greylisted@`
   * is rechecked in seconds, so a trial batch does not wait the live delay three times.
   */
  sandboxRecheckDelayMs: number;
  retentionDays: number;
  baseUrl: string;
  apiKey: string | null;
  /**
   * How long an MX host may keep throttling us (421s, rate-limit replies about the client) before
   * the addresses it never answered about end recheck_scheduled (reason host_throttled) instead
   * of waiting on (PRESEND_HOST_THROTTLE_BOUND_MS).
   */
  hostThrottleBoundMs: number;
  /**
   * Per-route politeness (issue 22, src/core/egress/polite-gate.ts): new SMTP sessions and RCPTs
   * per minute that one MX host sees from one egress route, evenly spaced and summed over every
   * worker on PostgreSQL (PRESEND_EGRESS_SESSIONS_PER_MINUTE_PER_HOST,
   * PRESEND_EGRESS_RCPTS_PER_MINUTE_PER_HOST); 0: no limit, the default.
   */
  egressSessionsPerMinutePerHost: number;
  egressRcptsPerMinutePerHost: number;
  /** Default token bucket per key: sustained requests/s and burst. */
  rateLimitPerSecond: number;
  rateLimitBurst: number;
  /**
   * The bucket of reads of results pages and batch status (GET /v1/requests/…), apart from the
   * one of checks and batches so an export never waits behind verifications, and larger: a
   * page is cheap (PRESEND_RESULTS_RATE_LIMIT_PER_SECOND, PRESEND_RESULTS_RATE_LIMIT_BURST).
   */
  resultsRateLimitPerSecond: number;
  resultsRateLimitBurst: number;
  /** Single checks running at once in this process; more is 503 (PRESEND_MAX_RUNNING_CHECKS). */
  maxRunningChecks: number;
  /** Single checks one account runs at once in this process; more is 429 (PRESEND_MAX_RUNNING_CHECKS_PER_ACCOUNT). */
  maxRunningChecksPerAccount: number;
  /** Single checks one API key runs at once in this process; more is 429 (PRESEND_MAX_RUNNING_CHECKS_PER_KEY). */
  maxRunningChecksPerKey: number;
  /**
   * The longest one live single check runs, its wait in an MX host's queue included
   * (PRESEND_CHECK_DEADLINE_MS). Default 120 s, the longest wait a caller may ask for, so a
   * caller never loses an answer it was ready to wait for.
   */
  checkDeadlineMs: number;
  /** Single checks of one MX host in the engine at once; more end TRANSIENT at once (PRESEND_MAX_CHECKS_PER_MX_HOST). */
  maxChecksPerMxHost: number;
  /** How long /readyz waits for the store to answer a read and take a small write (PRESEND_READY_TIMEOUT_MS). */
  readyTimeoutMs: number;
  /**
   * Batch items one claim takes (a worker runs two claims at once). Claims are grouped by domain,
   * so a small chunk keeps only a domain or two in flight: 64 left the per-MX session limits idle
   * (BENCHMARKS.md, scale-out: one worker 18.3 s at 64, 6.5 s at 1000).
   */
  workerConcurrency: number;
  /** Chunks of `workerConcurrency` items one worker verifies at once (PRESEND_WORKER_PARALLEL_CHUNKS). */
  workerParallelChunks: number;
  /**
   * Affinity name of this process's worker: same name = same egress host, so a greylisted
   * address is rechecked from the host that saw it (PRESEND_WORKER_ID, default the host name).
   */
  workerId: string;
  /**
   * How long a claimed batch item or a running single check stays with a process that stopped
   * renewing it before another takes it over (PRESEND_WORKER_LEASE_MS).
   */
  leaseMs: number;
  /** How often an idle worker looks for work that no wake-up announced (expired leases) (PRESEND_WORKER_POLL_MS). */
  workerPollMs: number;
  /** How long a due recheck waits for its own worker before any worker takes it; null = max(recheck delay, 60 s). */
  workerAffinityGraceMs: number | null;
  /** PostgreSQL: connections of the store pool of this process (PRESEND_DATABASE_POOL_SIZE). */
  databasePoolSize: number;
  /** PostgreSQL: connections for MX session slots and domain facts (PRESEND_SHARED_POOL_SIZE). */
  sharedPoolSize: number;
  /** PostgreSQL: how long a dead worker's MX session slot stays taken (PRESEND_MX_SLOT_LEASE_MS). */
  mxSlotLeaseMs: number;
  /** The sandbox's `slow@` delay; null = its default (PRESEND_SANDBOX_SLOW_DELAY_MS, tests and demos only). */
  sandboxSlowDelayMs: number | null;
  logLevel: string;
  /**
   * Which proxies in front are trusted to say the client's address and scheme
   * (X-Forwarded-For, X-Forwarded-Proto) (PRESEND_TRUST_PROXY): false (none, the default), true
   * (any), a hop count, or a comma list of addresses and CIDR ranges. The dashboard's cookies
   * are `Secure` and its sign-in throttling counts per client address as these say.
   */
  trustProxy: boolean | number | string[];
  /**
   * Open connections of this process (PRESEND_MAX_CONNECTIONS) and of one client address
   * (PRESEND_MAX_CONNECTIONS_PER_CLIENT, 0 for none), kept at the socket (src/api/connection-caps.ts).
   */
  maxConnections: number;
  maxConnectionsPerClient: number;
  /** The largest file the dashboard accepts for a list (PRESEND_DASHBOARD_MAX_UPLOAD_MB). */
  dashboardMaxUploadBytes: number;
  /**
   * The bounds of every table reading — `presend batch FILE`, `presend lists import`, dashboard
   * uploads and their stored-file imports (PRESEND_FILE_MAX_MB, PRESEND_FILE_MAX_ROWS,
   * PRESEND_XLSX_MAX_UNZIPPED_MB; src/files/limits.ts has the fixed ones).
   */
  tableLimits: TableLimits;
  /**
   * The most entries a stored list may have (PRESEND_LIST_MAX_ENTRIES): an import stops (the list
   * is marked failed) and a batch over a longer list is refused `list_too_large` (422) beyond it.
   */
  listMaxEntries: number;
  /**
   * The most unfinished batch items one account may have at once, over all its open batches
   * (PRESEND_ACCOUNT_MAX_OUTSTANDING): a batch that would pass it is refused `too_much_outstanding_work` (429).
   */
  accountMaxOutstanding: number;
  /**
   * Entries of a list copied into a batch per transaction (PRESEND_LIST_FILL_CHUNK): one chunk is
   * what the event loop and memory hold at a time while a list batch is written.
   */
  listFillChunk: number;
  /** Rows deleted per transaction by the retention purge, which yields between them (PRESEND_PURGE_CHUNK). */
  purgeChunk: number;
  /**
   * How far from now the time a feedback provider signed a delivery with may be, in seconds
   * (PRESEND_FEEDBACK_SIGNATURE_MAX_AGE_S, src/feedback/providers/signed-time.ts): further is a
   * replay, refused. At most a day, well inside the feedback events' retention.
   */
  feedbackSignatureMaxAgeS: number;
  /**
   * Days a feedback event is kept after it happened (PRESEND_FEEDBACK_EVENTS_RETENTION_DAYS); the
   * address summaries the checks read are kept (docs/feedback.md). At least a week: longer than any
   * provider retries a delivery, and than the signature window.
   */
  feedbackEventsRetentionDays: number;
}

type Env = Record<string, string | undefined>;

/** The one integer parser: `fallback` when unset or blank. */
function parseIntVar<F extends number | null>(env: Env, name: string, fallback: F, min: number, max: number): number | F {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  if (!/^-?\d+$/.test(raw.trim())) throw new ConfigError(name, `expected an integer, got "${raw}"`);
  const value = Number(raw.trim());
  if (value < min || value > max) throw new ConfigError(name, `must be between ${min} and ${max}, got ${value}`);
  return value;
}

export function parseHostPort(text: string, defaultPort: number, variable: string): HostPort {
  const trimmed = text.trim();
  // [::1]:53 or [::1]
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(trimmed);
  if (bracketed) {
    return { host: bracketed[1] ?? '', port: bracketed[2] ? Number(bracketed[2]) : defaultPort };
  }
  const parts = trimmed.split(':');
  if (parts.length === 2 && /^\d+$/.test(parts[1] ?? '')) {
    const port = Number(parts[1]);
    if (port < 1 || port > 65535) throw new ConfigError(variable, `bad port in "${text}"`);
    return { host: parts[0] ?? '', port };
  }
  if (parts.length > 2) return { host: trimmed, port: defaultPort }; // bare IPv6
  if (trimmed === '') throw new ConfigError(variable, 'empty host');
  return { host: trimmed, port: defaultPort };
}

function badValue(env: Env, name: string, expected: string): never {
  throw new ConfigError(name, `${expected}, got "${env[name] ?? ''}"`);
}

function validateDatabaseUrl(url: string): string {
  if (url.startsWith('sqlite:') || url.startsWith('postgres://') || url.startsWith('postgresql://')) return url;
  // The message is printed and may be logged: a password in the URL is not repeated in it.
  const shown = url.replace(/^([a-z][\w+.-]*:\/\/[^:/@]*):[^@/]*@/i, '$1:[redacted]@');
  throw new ConfigError('PRESEND_DATABASE_URL', `expected sqlite:PATH, sqlite::memory: or postgres://…, got "${shown}"`);
}

function validateHelo(name: string | undefined): string | null {
  if (name === undefined || name.trim() === '') return null;
  const value = name.trim();
  const problem = heloNameProblem(value);
  if (problem) throw new ConfigError('PRESEND_HELO_NAME', problem);
  return value;
}

function validateMailFrom(address: string | undefined): string | null {
  if (address === undefined || address.trim() === '') return null;
  const value = address.trim();
  if (!/^[^@\s<>]+@[^@\s<>]+\.[^@\s<>]+$/.test(value) && !/^[^@\s<>]+@[^@\s<>]+$/.test(value)) {
    throw new ConfigError('PRESEND_MAIL_FROM', `not an address: "${value}"`);
  }
  return value;
}

function validateProxy(url: string | undefined): string | null {
  if (url === undefined || url.trim() === '') return null;
  if (!/^socks5h?:\/\//.test(url.trim())) {
    throw new ConfigError('PRESEND_SMTP_PROXY', 'expected socks5://user:pass@host:port');
  }
  return url.trim();
}

function validateCanary(raw: string | undefined): string | null {
  const value = raw?.trim() ?? '';
  if (value === '') return null;
  if (isIP(value) === 0 && !/^[a-z0-9](?:[a-z0-9.-]*[a-z0-9])?$/i.test(value)) throw new ConfigError('PRESEND_CANARY_MX', `expected a host name or an IP address, got "${value}"`);
  return value;
}

function validateEgressIp(raw: string | undefined): string | null {
  const value = raw?.trim() ?? '';
  if (value === '') return null;
  if (isIP(value) === 0) throw new ConfigError('PRESEND_EGRESS_IP', `expected an IPv4 or IPv6 address, got "${value}"`);
  return value;
}

/**
 * The blocklists a prober's address is worth checking against: the ones big receivers query
 * at connect time (Spamhaus ZEN = SBL + XBL + PBL; Barracuda's BRBL; SpamCop's SCBL).
 */
export const DEFAULT_DNSBLS = ['zen.spamhaus.org', 'b.barracudacentral.org', 'bl.spamcop.net'];

function parseDnsbls(raw: string | undefined): string[] {
  const value = raw?.trim() ?? '';
  if (value === '') return [...DEFAULT_DNSBLS];
  if (/^none$/i.test(value)) return [];
  const zones = value.split(',').map((s) => s.trim().toLowerCase().replace(/\.$/, '')).filter((s) => s !== '');
  const bad = zones.find((zone) => !/^[a-z0-9](?:[a-z0-9.-]*[a-z0-9])?\.[a-z0-9-]+$/.test(zone));
  if (bad !== undefined) throw new ConfigError('PRESEND_DNSBLS', `expected a comma list of blocklist zones (e.g. zen.spamhaus.org) or "none", got "${bad}"`);
  return zones;
}

/** `@/path/file.json` reads the routes from a file; anything else is the JSON itself. */
function egressText(raw: string): string {
  if (!raw.startsWith('@')) return raw;
  try {
    return readFileSync(raw.slice(1), 'utf8');
  } catch (err) {
    throw new ConfigError('PRESEND_EGRESS', `cannot read ${raw.slice(1)}: ${(err as Error).message}`);
  }
}

/** The egress routes, and the first route's settings as the probe's own (see PresendConfig.egress). */
function applyEgress(config: PresendConfig, raw: string | undefined, overrides: Partial<PresendConfig>): void {
  if (overrides.egress !== undefined) return;
  const text = raw?.trim() ?? '';
  if (text === '') {
    config.egress = config.heloName ? [{ name: config.smtpProxy ? 'proxy' : 'direct', source: config.smtpSourceAddress, proxy: config.smtpProxy, heloName: config.heloName, providers: [] }] : [];
    return;
  }
  if (config.smtpProxy) throw new ConfigError('PRESEND_EGRESS', 'set either PRESEND_EGRESS (routes with their proxies) or PRESEND_SMTP_PROXY, not both');
  let routes: EgressRoute[];
  try {
    routes = parseEgressRoutes(egressText(text), config.heloName);
  } catch (err) {
    if (err instanceof ConfigError) throw err;
    throw new ConfigError('PRESEND_EGRESS', (err as Error).message);
  }
  const first = routes[0] as EgressRoute;
  config.egress = routes;
  config.heloName = first.heloName;
  config.smtpProxy = first.proxy;
  config.smtpSourceAddress = first.source;
}

/** A name usable as a queue and lease owner name: letters, digits, `.`, `_` and `-`. */
function validateWorkerId(raw: string | undefined): string {
  const value = raw?.trim() || hostname();
  if (!/^[\w.-]{1,100}$/.test(value)) throw new ConfigError('PRESEND_WORKER_ID', `expected 1–100 letters, digits, ".", "_" or "-", got "${value}"`);
  return value;
}

function parseTrustProxy(raw: string | undefined): boolean | number | string[] {
  const value = raw?.trim() ?? '';
  if (value === '' || /^(false|no|off|0)$/i.test(value)) return false;
  if (/^(true|yes|on)$/i.test(value)) return true;
  if (/^\d+$/.test(value)) return Number(value);
  const entries = value.split(',').map((s) => s.trim()).filter((s) => s !== '');
  if (entries.every((e) => /^[0-9a-fA-F:.]+(\/\d{1,3})?$/.test(e))) return entries;
  throw new ConfigError('PRESEND_TRUST_PROXY', `expected true, false, a hop count or a comma list of addresses/CIDR ranges, got "${value}"`);
}

/** Per client at most 256 connections by default, and never more than the whole process has. */
function connectionCaps(env: Env): Pick<PresendConfig, 'maxConnections' | 'maxConnectionsPerClient'> {
  const maxConnections = parseIntVar(env, 'PRESEND_MAX_CONNECTIONS', 10_000, 1, 1_000_000);
  const perClient = parseIntVar(env, 'PRESEND_MAX_CONNECTIONS_PER_CLIENT', null, 0, 1_000_000);
  if (perClient !== null && perClient > maxConnections) {
    throw new ConfigError('PRESEND_MAX_CONNECTIONS_PER_CLIENT', `must not exceed PRESEND_MAX_CONNECTIONS (${maxConnections}), got ${perClient}; 0 turns the per-client cap off`);
  }
  return { maxConnections, maxConnectionsPerClient: perClient ?? Math.min(256, maxConnections) };
}

/**
 * The bounds of reading a table file, alone: the commands that read a file for the API (`presend
 * batch FILE`) need these and none of the server's settings. Rows default to twice the longest
 * list (PRESEND_LIST_MAX_ENTRIES), at least 2,000,000: a file may hold blank and invalid rows too.
 */
export function loadTableLimits(env: Env = process.env): TableLimits {
  const listMax = parseIntVar(env, 'PRESEND_LIST_MAX_ENTRIES', 1_000_000, 1, 100_000_000);
  return {
    maxBytes: parseIntVar(env, 'PRESEND_FILE_MAX_MB', DEFAULT_TABLE_LIMITS.maxBytes / MB, 1, 102_400) * MB,
    maxRows: parseIntVar(env, 'PRESEND_FILE_MAX_ROWS', Math.max(DEFAULT_TABLE_LIMITS.maxRows, 2 * listMax), 1, 1_000_000_000),
    maxUnzippedBytes: parseIntVar(env, 'PRESEND_XLSX_MAX_UNZIPPED_MB', DEFAULT_TABLE_LIMITS.maxUnzippedBytes / MB, 1, 102_400) * MB,
  };
}

/**
 * The configuration of a command: the process environment with the variables its flags give
 * (undefined ones ignored), validated alike — `loadCommandConfig({ PRESEND_PORT: flags.port })`.
 */
/** The settings live mailbox probes still need (empty when the engine can probe): names with an example each. */
export function missingProbeIdentity(config: Pick<PresendConfig, 'heloName' | 'mailFrom'>): string[] {
  const missing: string[] = [];
  if (!config.heloName) missing.push('PRESEND_HELO_NAME (a host name of yours, e.g. probe.example.com)');
  if (!config.mailFrom) missing.push('PRESEND_MAIL_FROM (an address of yours, e.g. verify@example.com)');
  return missing;
}

export function loadCommandConfig(flags: Env = {}): PresendConfig {
  const given = Object.fromEntries(Object.entries(flags).filter(([, v]) => v !== undefined));
  return loadConfig({ ...process.env, ...given });
}

/** Every setting at its default, with `overrides` (tests, and libraries opened without a command). */
export function defaultConfig(overrides: Partial<PresendConfig> = {}): PresendConfig {
  return loadConfig({}, overrides);
}

/** The configuration described by `env` (default the process environment); `overrides` replace parsed values (tests). */
export function loadConfig(env: Env = process.env, overrides: Partial<PresendConfig> = {}): PresendConfig {
  const dnsRaw = env.PRESEND_DNS_SERVERS?.trim();
  const config: PresendConfig = {
    databaseUrl: validateDatabaseUrl(env.PRESEND_DATABASE_URL?.trim() || 'sqlite:./data/presend.db'),
    host: env.PRESEND_HOST?.trim() || '127.0.0.1',
    port: parseIntVar(env, 'PRESEND_PORT', 8080, 0, 65535),
    dnsServers: dnsRaw ? dnsRaw.split(',').map((s) => parseHostPort(s, 53, 'PRESEND_DNS_SERVERS')) : [],
    smtpPort: parseIntVar(env, 'PRESEND_SMTP_PORT', 25, 1, 65535),
    allowPrivateMx: parsePrivateMxAllowance(env.PRESEND_ALLOW_PRIVATE_MX) ?? badValue(env, 'PRESEND_ALLOW_PRIVATE_MX', 'expected false, loopback or true'),
    allowPrivateWebhooks:
      parsePrivateMxAllowance(env.PRESEND_ALLOW_PRIVATE_WEBHOOKS) ?? badValue(env, 'PRESEND_ALLOW_PRIVATE_WEBHOOKS', 'expected false, loopback or true'),
    // Standard Webhooks recommends 15–30 s ("Request timeouts").
    webhookTimeoutMs: parseIntVar(env, 'PRESEND_WEBHOOK_TIMEOUT_MS', 15_000, 100, 120_000),
    webhookPollMs: parseIntVar(env, 'PRESEND_WEBHOOK_POLL_MS', 1000, 10, 3_600_000),
    heloName: validateHelo(env.PRESEND_HELO_NAME),
    mailFrom: validateMailFrom(env.PRESEND_MAIL_FROM),
    smtpProxy: validateProxy(env.PRESEND_SMTP_PROXY),
    canaryMx: validateCanary(env.PRESEND_CANARY_MX),
    egressIp: validateEgressIp(env.PRESEND_EGRESS_IP),
    dnsbls: parseDnsbls(env.PRESEND_DNSBLS),
    egress: [],
    smtpSourceAddress: null,
    recheckDelayMs: parseIntVar(env, 'PRESEND_RECHECK_DELAY_MS', 300_000, 0, 86_400_000),
    sandboxRecheckDelayMs: parseIntVar(env, 'PRESEND_SANDBOX_RECHECK_DELAY_MS', 2_000, 0, 86_400_000),
    retentionDays: parseIntVar(env, 'PRESEND_RETENTION_DAYS', 30, 1, 3650),
    baseUrl: env.PRESEND_BASE_URL?.trim() || 'http://127.0.0.1:8080',
    apiKey: env.PRESEND_API_KEY?.trim() || null,
    maxSessionsPerMx: parseIntVar(env, 'PRESEND_MAX_SESSIONS_PER_MX', 10, 1, 100),
    hostThrottleBoundMs: parseIntVar(env, 'PRESEND_HOST_THROTTLE_BOUND_MS', 180_000, 1_000, 3_600_000),
    egressSessionsPerMinutePerHost: parseIntVar(env, 'PRESEND_EGRESS_SESSIONS_PER_MINUTE_PER_HOST', 0, 0, 100_000),
    egressRcptsPerMinutePerHost: parseIntVar(env, 'PRESEND_EGRESS_RCPTS_PER_MINUTE_PER_HOST', 0, 0, 100_000),
    smtpTimeoutMs: parseIntVar(env, 'PRESEND_SMTP_TIMEOUT_MS', 10_000, 100, 300_000),
    dnsTimeoutMs: parseIntVar(env, 'PRESEND_DNS_TIMEOUT_MS', 5_000, 50, 60_000),
    rateLimitPerSecond: parseIntVar(env, 'PRESEND_RATE_LIMIT_PER_SECOND', 20, 1, 1_000_000),
    rateLimitBurst: parseIntVar(env, 'PRESEND_RATE_LIMIT_BURST', 40, 1, 1_000_000),
    resultsRateLimitPerSecond: parseIntVar(env, 'PRESEND_RESULTS_RATE_LIMIT_PER_SECOND', 200, 1, 1_000_000),
    resultsRateLimitBurst: parseIntVar(env, 'PRESEND_RESULTS_RATE_LIMIT_BURST', 400, 1, 1_000_000),
    maxRunningChecks: parseIntVar(env, 'PRESEND_MAX_RUNNING_CHECKS', 1000, 1, 1_000_000),
    maxRunningChecksPerAccount: parseIntVar(env, 'PRESEND_MAX_RUNNING_CHECKS_PER_ACCOUNT', 50, 1, 1_000_000),
    maxRunningChecksPerKey: parseIntVar(env, 'PRESEND_MAX_RUNNING_CHECKS_PER_KEY', 50, 1, 1_000_000),
    checkDeadlineMs: parseIntVar(env, 'PRESEND_CHECK_DEADLINE_MS', 120_000, 100, 3_600_000),
    maxChecksPerMxHost: parseIntVar(env, 'PRESEND_MAX_CHECKS_PER_MX_HOST', 100, 1, 1_000_000),
    readyTimeoutMs: parseIntVar(env, 'PRESEND_READY_TIMEOUT_MS', 2000, 50, 60_000),
    workerConcurrency: parseIntVar(env, 'PRESEND_WORKER_CONCURRENCY', 1000, 1, 10_000),
    workerParallelChunks: parseIntVar(env, 'PRESEND_WORKER_PARALLEL_CHUNKS', 2, 1, 64),
    workerId: validateWorkerId(env.PRESEND_WORKER_ID),
    leaseMs: parseIntVar(env, 'PRESEND_WORKER_LEASE_MS', 60_000, 10, 86_400_000),
    workerPollMs: parseIntVar(env, 'PRESEND_WORKER_POLL_MS', 500, 10, 3_600_000),
    workerAffinityGraceMs: parseIntVar(env, 'PRESEND_WORKER_AFFINITY_GRACE_MS', null, 0, 86_400_000),
    databasePoolSize: parseIntVar(env, 'PRESEND_DATABASE_POOL_SIZE', 10, 1, 1000),
    sharedPoolSize: parseIntVar(env, 'PRESEND_SHARED_POOL_SIZE', 4, 1, 1000),
    mxSlotLeaseMs: parseIntVar(env, 'PRESEND_MX_SLOT_LEASE_MS', 15_000, 300, 3_600_000),
    sandboxSlowDelayMs: parseIntVar(env, 'PRESEND_SANDBOX_SLOW_DELAY_MS', null, 0, 3_600_000),
    logLevel: env.PRESEND_LOG_LEVEL?.trim() || 'info',
    trustProxy: parseTrustProxy(env.PRESEND_TRUST_PROXY),
    ...connectionCaps(env),
    dashboardMaxUploadBytes: parseIntVar(env, 'PRESEND_DASHBOARD_MAX_UPLOAD_MB', 100, 1, 10_240) * 1024 * 1024,
    tableLimits: loadTableLimits(env),
    listMaxEntries: parseIntVar(env, 'PRESEND_LIST_MAX_ENTRIES', 1_000_000, 1, 100_000_000),
    accountMaxOutstanding: parseIntVar(env, 'PRESEND_ACCOUNT_MAX_OUTSTANDING', 2_000_000, 1, 1_000_000_000),
    listFillChunk: parseIntVar(env, 'PRESEND_LIST_FILL_CHUNK', 500, 10, 100_000),
    purgeChunk: parseIntVar(env, 'PRESEND_PURGE_CHUNK', 2_000, 10, 100_000),
    feedbackSignatureMaxAgeS: parseIntVar(env, 'PRESEND_FEEDBACK_SIGNATURE_MAX_AGE_S', DEFAULT_SIGNATURE_MAX_AGE_S, 60, 86_400),
    feedbackEventsRetentionDays: parseIntVar(env, 'PRESEND_FEEDBACK_EVENTS_RETENTION_DAYS', DEFAULT_FEEDBACK_EVENTS_RETENTION_DAYS, 7, 36_500),
    ...overrides,
  };
  applyEgress(config, env.PRESEND_EGRESS, overrides);
  if (config.mailFrom && config.heloName === null) {
    throw new ConfigError('PRESEND_HELO_NAME', 'is required when PRESEND_MAIL_FROM is set');
  }
  return config;
}
