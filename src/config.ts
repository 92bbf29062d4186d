/**
 * Configuration (DESIGN.md §2): parsed and validated once at start-up from the environment;
 * CLI flags override by passing a partial object. A bad value stops start-up with a
 * ConfigError that names the variable.
 */
import { parsePrivateMxAllowance, type PrivateMxAllowance } from './core/dns/address-safety.js';
import { heloNameProblem } from './core/helo-name.js';

export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    message: string,
  ) {
    super(`${variable}: ${message}`);
    this.name = 'ConfigError';
  }
}

export interface HostPort {
  host: string;
  port: number;
}

export interface PresendConfig {
  databaseUrl: string;
  host: string;
  port: number;
  /** Empty means the system resolver. */
  dnsServers: HostPort[];
  smtpPort: number;
  /** false: refuse private MX addresses; 'loopback': 127.0.0.0/8 and ::1 only; true: all. */
  allowPrivateMx: PrivateMxAllowance;
  /** Required before a live probe is made; null means "not configured" (live probes refuse). */
  heloName: string | null;
  mailFrom: string | null;
  smtpProxy: string | null;
  recheckDelayMs: number;
  retentionDays: number;
  baseUrl: string;
  apiKey: string | null;
  /** Concurrent SMTP sessions allowed per MX host (summed over all workers on PostgreSQL). */
  maxSessionsPerMx: number;
  /** Per-step SMTP timeout (connect, banner, each reply). */
  smtpTimeoutMs: number;
  dnsTimeoutMs: number;
  /** Default token bucket per key: sustained requests/s and burst. */
  rateLimitPerSecond: number;
  rateLimitBurst: number;
  /**
   * Batch items one claim takes (a worker runs two claims at once). Claims are grouped by domain,
   * so a small chunk keeps only a domain or two in flight: 64 left the per-MX session limits idle
   * (BENCHMARKS.md, scale-out: one worker 18.3 s at 64, 6.5 s at 1000).
   */
  workerConcurrency: number;
  logLevel: string;
}

type Env = Record<string, string | undefined>;

function parseIntVar(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
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
  throw new ConfigError('PRESEND_DATABASE_URL', `expected sqlite:PATH, sqlite::memory: or postgres://…, got "${url}"`);
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

export function loadConfig(env: Env = process.env, overrides: Partial<PresendConfig> = {}): PresendConfig {
  const dnsRaw = env.PRESEND_DNS_SERVERS?.trim();
  const config: PresendConfig = {
    databaseUrl: validateDatabaseUrl(env.PRESEND_DATABASE_URL?.trim() || 'sqlite:./data/presend.db'),
    host: env.PRESEND_HOST?.trim() || '127.0.0.1',
    port: parseIntVar(env, 'PRESEND_PORT', 8080, 0, 65535),
    dnsServers: dnsRaw ? dnsRaw.split(',').map((s) => parseHostPort(s, 53, 'PRESEND_DNS_SERVERS')) : [],
    smtpPort: parseIntVar(env, 'PRESEND_SMTP_PORT', 25, 1, 65535),
    allowPrivateMx: parsePrivateMxAllowance(env.PRESEND_ALLOW_PRIVATE_MX) ?? badValue(env, 'PRESEND_ALLOW_PRIVATE_MX', 'expected false, loopback or true'),
    heloName: validateHelo(env.PRESEND_HELO_NAME),
    mailFrom: validateMailFrom(env.PRESEND_MAIL_FROM),
    smtpProxy: validateProxy(env.PRESEND_SMTP_PROXY),
    recheckDelayMs: parseIntVar(env, 'PRESEND_RECHECK_DELAY_MS', 300_000, 0, 86_400_000),
    retentionDays: parseIntVar(env, 'PRESEND_RETENTION_DAYS', 30, 1, 3650),
    baseUrl: env.PRESEND_BASE_URL?.trim() || 'http://127.0.0.1:8080',
    apiKey: env.PRESEND_API_KEY?.trim() || null,
    maxSessionsPerMx: parseIntVar(env, 'PRESEND_MAX_SESSIONS_PER_MX', 2, 1, 100),
    smtpTimeoutMs: parseIntVar(env, 'PRESEND_SMTP_TIMEOUT_MS', 10_000, 100, 300_000),
    dnsTimeoutMs: parseIntVar(env, 'PRESEND_DNS_TIMEOUT_MS', 5_000, 50, 60_000),
    rateLimitPerSecond: parseIntVar(env, 'PRESEND_RATE_LIMIT_PER_SECOND', 20, 1, 1_000_000),
    rateLimitBurst: parseIntVar(env, 'PRESEND_RATE_LIMIT_BURST', 40, 1, 1_000_000),
    workerConcurrency: parseIntVar(env, 'PRESEND_WORKER_CONCURRENCY', 1000, 1, 10_000),
    logLevel: env.PRESEND_LOG_LEVEL?.trim() || 'info',
    ...overrides,
  };
  if (config.mailFrom && config.heloName === null) {
    throw new ConfigError('PRESEND_HELO_NAME', 'is required when PRESEND_MAIL_FROM is set');
  }
  return config;
}
