/**
 * Single verification (`POST /v1/verify`): idempotency claim + credit hold in the store, the
 * engine run in the background, and a bounded wait for its result. The check always runs to
 * its end and its result is stored, even when the caller already got a 202 — even when the
 * process that accepted it dies: each running check is leased in the store and its lease
 * renewed while it runs; a lapsed lease is taken over and the check run again by a serving
 * process (a replay of the 202 then finds the result).
 */
import { parseAddress } from '../core/syntax/address.js';
import { invalidAddressMessage } from '../core/syntax/problems.js';
import type { AuthenticatedKey, VerificationRecord } from '../store/store.js';
import type { VerificationsRole } from '../store/backend.js';
import { toStoredResult } from '../store/store.js';
import type { Refusal } from './errors.js';
import { engineFor } from './engines.js';
import type { Engines } from './engines.js';
import { idempotencyClaim } from './idempotency.js';
import type { Metrics } from './metrics.js';
import type { Engine } from '../core/ports.js';
import type { Logger } from '../logger.js';

export const VERIFY_ROUTE = 'POST /v1/verify';
export const DEFAULT_VERIFY_TIMEOUT_MS = 15_000;
/** Abandoned checks taken over per sweep. */
const RESUME_BATCH = 100;

export type VerifyOutcome =
  | { kind: 'completed'; record: VerificationRecord; replayed: boolean }
  | { kind: 'pending'; record: VerificationRecord; replayed: boolean }
  | Refusal;

export interface VerifyServiceOptions {
  verifications: VerificationsRole;
  engines: Engines;
  metrics: Metrics;
  /** Checks running at once in this process; more is 503 (a bounded queue, not an unbounded one). */
  maxInFlight: number;
  /** Lease of a running check (config.leaseMs); renewed and swept for abandoned checks every third of it. */
  leaseMs: number;
  now?: () => Date;
  log: Logger;
}

type Settled = { ok: true; record: VerificationRecord } | { ok: false };

export class VerifyService {
  private readonly inFlight = new Map<string, Promise<Settled>>();
  private readonly abort = new AbortController();
  private draining = false;
  private readonly now: () => Date;
  private readonly leaseMs: number;
  private maintenance: NodeJS.Timeout | null = null;

  constructor(private readonly options: VerifyServiceOptions) {
    this.now = options.now ?? (() => new Date());
    this.leaseMs = options.leaseMs;
  }

  /** Starts renewing this process's leases and resuming checks other processes abandoned. */
  start(): void {
    if (this.maintenance) return;
    const tick = (): void => {
      void this.maintain().catch((err: unknown) => this.options.log.warn({ err }, 'verification lease upkeep failed'));
    };
    this.maintenance = setInterval(tick, Math.max(10, Math.floor(this.leaseMs / 3)));
    this.maintenance.unref();
    tick();
  }

  private async maintain(): Promise<void> {
    const { verifications, engines } = this.options;
    const now = this.now();
    const until = new Date(now.getTime() + this.leaseMs);
    if (this.inFlight.size > 0) await verifications.renewLeases([...this.inFlight.keys()], until);
    const room = Math.min(RESUME_BATCH, this.options.maxInFlight - this.inFlight.size);
    if (this.draining || room <= 0) return;
    for (const record of await verifications.claimAbandoned({ now, leaseExpiresAt: until, limit: room })) {
      if (this.inFlight.has(record.id)) continue; // still ours: its renewal was only late
      this.options.log.info({ verificationId: record.id }, 'resuming an abandoned verification');
      // Live checks hold a credit; sandbox ones are the unbilled ones.
      void this.run(record, engineFor(engines, !record.billable));
    }
  }

  get activeChecks(): number {
    return this.inFlight.size;
  }

  async verify(key: AuthenticatedKey, body: { email: string; timeoutMs?: number }, idempotencyKey: string): Promise<VerifyOutcome> {
    const parsed = parseAddress(body.email);
    if (!parsed.ok) return { kind: 'refused', code: 'invalid_email', message: invalidAddressMessage('email', body.email) };
    if (this.draining) return { kind: 'refused', code: 'service_unavailable', message: 'The service is shutting down.' };
    const liveOff = key.mode === 'live' ? this.options.engines.liveChecksOff : undefined;
    if (liveOff !== undefined) return { kind: 'refused', code: 'service_unavailable', message: liveOff };
    if (this.inFlight.size >= this.options.maxInFlight) {
      return { kind: 'refused', code: 'service_unavailable', message: 'Too many checks in progress; retry later.' };
    }
    const timeoutMs = body.timeoutMs ?? DEFAULT_VERIFY_TIMEOUT_MS;
    const now = this.now();
    const sandbox = key.mode === 'test';
    const engine = engineFor(this.options.engines, sandbox);
    // A result known without waiting (sandbox) is stored by the write that creates the check.
    const ready = engine.immediate?.(parsed.address.normalized) ?? null;
    const started = await this.options.verifications.start({
      accountId: key.accountId,
      keyId: key.keyId,
      email: parsed.address.normalized,
      billable: !sandbox,
      idempotency: idempotencyClaim(VERIFY_ROUTE, idempotencyKey, body, now),
      now,
      leaseExpiresAt: new Date(now.getTime() + this.leaseMs),
      ...(ready ? { result: toStoredResult(ready) } : {}),
    });
    switch (started.kind) {
      case 'idempotency_mismatch':
        return { kind: 'refused', code: 'idempotency_key_reused' };
      case 'insufficient_credits':
        return { kind: 'refused', code: 'insufficient_credits', message: `This check needs 1 credit; ${Math.max(0, started.available)} available.` };
      case 'replay':
        return this.replay(started.verification, timeoutMs);
      case 'created':
        break;
    }
    const record = started.verification;
    if (record.state === 'completed') {
      this.observe(record);
      return { kind: 'completed', record, replayed: false };
    }
    const run = this.run(record, engine);
    return this.await(record, run, timeoutMs, false);
  }

  /** The same verification as it stands now (DESIGN.md §4): billed once, never run twice. */
  private async replay(record: VerificationRecord, timeoutMs: number): Promise<VerifyOutcome> {
    if (record.state === 'completed') return { kind: 'completed', record, replayed: true };
    if (record.state === 'failed') return { kind: 'refused', code: 'engine_unavailable' };
    const running = this.inFlight.get(record.id);
    if (!running) return { kind: 'pending', record, replayed: true };
    return this.await(record, running, timeoutMs, true);
  }

  private async await(record: VerificationRecord, run: Promise<Settled>, timeoutMs: number, replayed: boolean): Promise<VerifyOutcome> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), timeoutMs);
    });
    const settled = await Promise.race([run, timeout]);
    clearTimeout(timer);
    if (settled === 'timeout') return { kind: 'pending', record, replayed };
    if (!settled.ok) return { kind: 'refused', code: 'engine_unavailable' };
    return { kind: 'completed', record: settled.record, replayed };
  }

  private run(record: VerificationRecord, engine: Engine): Promise<Settled> {
    const { verifications } = this.options;
    const work = (async (): Promise<Settled> => {
      try {
        const result = await engine.verify(record.email, { signal: this.abort.signal });
        const stored = await verifications.complete({ verificationId: record.id, result: toStoredResult(result), now: this.now() });
        this.observe(stored);
        return { ok: true, record: stored };
      } catch (err) {
        this.options.log.warn({ err, verificationId: record.id }, 'single verification failed');
        // The engine never throws for an address's behaviour; a throw is a bug or an outage (502).
        await verifications.fail({ verificationId: record.id, now: this.now() }).catch((failed: unknown) =>
          // Its lease runs out and another sweep takes it up again.
          this.options.log.warn({ err: failed, verificationId: record.id }, 'could not mark a verification failed'),
        );
        return { ok: false };
      }
    })();
    this.inFlight.set(record.id, work);
    void work.finally(() => this.inFlight.delete(record.id));
    return work;
  }

  private observe(record: VerificationRecord): void {
    const envelope = record.result?.envelope;
    this.options.metrics.observeVerification(envelope?.verdict ?? null, envelope?.billing.disposition === 'debited' ? 1 : 0);
  }

  /** New checks are refused (503) from now on; running ones continue. */
  stopAccepting(): void {
    this.draining = true;
  }

  /** Stop taking checks; let running ones finish for up to `graceMs`, then abort them (they are released). */
  async drain(graceMs: number): Promise<void> {
    this.draining = true;
    if (this.maintenance) clearInterval(this.maintenance);
    this.maintenance = null;
    const all = Promise.allSettled([...this.inFlight.values()]);
    let timer: NodeJS.Timeout | undefined;
    const grace = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, graceMs);
    });
    await Promise.race([all, grace]);
    clearTimeout(timer);
    this.abort.abort();
    await Promise.allSettled([...this.inFlight.values()]);
  }

  get isDraining(): boolean {
    return this.draining;
  }
}
