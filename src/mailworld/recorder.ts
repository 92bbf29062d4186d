/**
 * Records every SMTP session the world serves, so tests can assert politeness (peak
 * concurrent sessions per host) and session reuse (few sessions for many addresses).
 * A session counts as open from the accepted connection until QUIT is received or the
 * client's side of the connection ends, whichever comes first: a client that quits and
 * at once reconnects is not counted twice at the same moment.
 */
import type { RecordedSession } from './spec.js';

/** A session as the servers write into it; the recorder hands out copies. */
export class SessionLog {
  readonly record: RecordedSession;
  /** Index of the oldest command still waiting for its reply (replies come in order). */
  private awaiting = 0;

  constructor(
    private readonly recorder: SessionRecorder,
    host: string,
    ip: string,
  ) {
    this.record = { host, ip, startedAt: Date.now(), endedAt: null, commands: [], bannerCode: null, limitHits: [] };
  }

  /** A defence of the host went off in this session (defences.ts). */
  hit(kind: string): void {
    this.record.limitHits?.push(kind);
  }

  command(line: string): void {
    this.record.commands.push({ command: line.length > 300 ? `${line.slice(0, 300)}…` : line, replyCode: null });
  }

  /** A reply left the server: the greeting if no command came yet, else the oldest unanswered command's. */
  reply(code: number | null): void {
    const commands = this.record.commands;
    if (commands.length === 0 && this.record.bannerCode === null) {
      this.record.bannerCode = code;
      return;
    }
    const pending = commands[this.awaiting];
    if (!pending) return;
    pending.replyCode = code;
    this.awaiting++;
  }

  end(): void {
    if (this.record.endedAt !== null) return;
    this.record.endedAt = Date.now();
    this.recorder.ended(this);
  }

  get open(): boolean {
    return this.record.endedAt === null;
  }
}

interface HostCounters {
  open: number;
  peak: number;
  rcpts: number;
}

export class SessionRecorder {
  private logs: SessionLog[] = [];
  private readonly counters = new Map<string, HostCounters>();

  private countersOf(host: string): HostCounters {
    let counters = this.counters.get(host);
    if (!counters) {
      counters = { open: 0, peak: 0, rcpts: 0 };
      this.counters.set(host, counters);
    }
    return counters;
  }

  /** `client`: the address the session came from (an egress route's source). */
  begin(host: string, ip: string, client?: string): SessionLog {
    const log = new SessionLog(this, host, ip);
    if (client !== undefined) log.record.client = client;
    this.logs.push(log);
    const counters = this.countersOf(host);
    counters.open++;
    counters.peak = Math.max(counters.peak, counters.open);
    return log;
  }

  /** Called by SessionLog.end(); open sessions survive reset(), so every ending one is counted. */
  ended(log: SessionLog): void {
    const counters = this.counters.get(log.record.host);
    if (counters) counters.open = Math.max(0, counters.open - 1);
  }

  countRcpt(host: string): void {
    this.countersOf(host).rcpts++;
  }

  /** Sessions open right now at `host`. */
  openSessions(host: string): number {
    return this.counters.get(host)?.open ?? 0;
  }

  /** Peak of simultaneous sessions at `host` (or at any one host) since start or reset. */
  maxConcurrent(host?: string): number {
    if (host !== undefined) return this.counters.get(host)?.peak ?? 0;
    let peak = 0;
    for (const counters of this.counters.values()) peak = Math.max(peak, counters.peak);
    return peak;
  }

  sessions(host?: string): RecordedSession[] {
    return this.logs
      .filter((log) => host === undefined || log.record.host === host)
      .map((log) => ({ ...log.record, commands: log.record.commands.map((c) => ({ ...c })), limitHits: [...(log.record.limitHits ?? [])] }));
  }

  /** How often each defence went off at `host` (or anywhere), e.g. `{ too_many_errors: 2 }`. */
  limitHits(host?: string): Record<string, number> {
    const counts: Record<string, number> = {};
    for (const log of this.logs) {
      if (host !== undefined && log.record.host !== host) continue;
      for (const kind of log.record.limitHits ?? []) counts[kind] = (counts[kind] ?? 0) + 1;
    }
    return counts;
  }

  sessionCount(host?: string): number {
    if (host === undefined) return this.logs.length;
    let count = 0;
    for (const log of this.logs) if (log.record.host === host) count++;
    return count;
  }

  /** RCPT commands received at `host` (or everywhere). */
  rcptCount(host?: string): number {
    if (host !== undefined) return this.counters.get(host)?.rcpts ?? 0;
    let total = 0;
    for (const counters of this.counters.values()) total += counters.rcpts;
    return total;
  }

  /** Forgets finished sessions and counts; sessions still open keep counting from now. */
  reset(): void {
    this.logs = this.logs.filter((log) => log.open);
    for (const host of this.counters.keys()) {
      const open = this.logs.filter((log) => log.record.host === host).length;
      this.counters.set(host, { open, peak: open, rcpts: 0 });
    }
  }
}
