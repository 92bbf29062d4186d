/**
 * Single verification (`POST /v1/verify`): idempotency claim + credit hold in the store, the
 * engine run in the background, and a bounded wait for its result. The check always runs to
 * its end and its result is stored, even when the caller already got a 202 — even when the
 * process that accepted it dies: each running check is leased in the store, and the process's
 * lease keeper renews it while it runs; a lapsed lease is taken over by a serving process's keeper
 * and the check run again there (a replay of the 202 then finds the result).
 */
import { parseAddress } from '../../core/syntax/address.js';
import { invalidAddressMessage } from '../../core/syntax/problems.js';
import type { AuthenticatedKey } from '../../store/api-keys.js';
import type { StartVerificationOutcome, VerificationRecord, VerificationsRole } from '../../store/roles/verifications.js';
import type { PoliciesRole } from '../../store/roles/policies.js';
import { underAccountPolicy } from '../policy/apply-policy.js';
import { toStoredResult } from '../../store/stored-result.js';
import type { Refusal } from '../errors.js';
import { engineFor, liveChecksRefusal } from '../engines/engines.js';
import { CheckAdmission, isSeat } from './check-admission.js';
import type { AdmissionLimits, Seat } from './check-admission.js';
import type { Engines } from '../engines/engines.js';
import { idempotencyClaim } from './idempotency.js';
import type { Metrics } from '../operations/metrics.js';
import type { Engine } from '../../core/ports.js';
import type { EngineResult } from '../../core/types.js';
import type { Logger } from '../../logger.js';
import type { FeedbackRole } from '../../store/roles/feedback/feedback.js';
import { readFeedback } from '../feedback/check-feedback.js';
import type { FeedbackView } from '../feedback/check-feedback.js';
import type { LeasesRole } from '../../store/roles/leases.js';
import { LeaseKeeper, systemClock } from '../leases/lease-keeper.js';
import type { EvidenceRole } from '../../store/roles/evidence.js';
import { EvidenceKeeper } from '../evidence/evidence-keeper.js';

export const VERIFY_ROUTE = 'POST /v1/verify';
export const DEFAULT_VERIFY_TIMEOUT_MS = 15_000;
/** Abandoned checks taken over per renewal round. */
const RESUME_BATCH = 100;

export type VerifyOutcome =
  | { kind: 'completed'; record: VerificationRecord; replayed: boolean }
  | { kind: 'pending'; record: VerificationRecord; replayed: boolean }
  | Refusal;

export interface VerifyServiceOptions {
  verifications: VerificationsRole;
  leases: LeasesRole;
  /** The process's lease keeper (shared with its other work); none: a keeper of the service's own, started with it. */
  keeper?: LeaseKeeper;
  /** Each account's decision policy, read as each check is decided (docs/policy.md). */
  policies: PoliciesRole;
  /** The account's send feedback, read before each check (docs/feedback.md); none: results as the engine gives them. */
  feedback?: FeedbackRole;
  engines: Engines;
  metrics: Metrics;
  /** Where each check's evidence is kept (docs/evidence.md); none: checks are not explained. */
  evidence?: EvidenceRole;
  /**
   * Checks running at once in this process (`total`; more is 503, a bounded queue, not an
   * unbounded one), per account and per key (more is 429): check-admission.ts.
   */
  limits: AdmissionLimits;
  /** The longest one live check runs, its waits for an MX host included; then it ends TRANSIENT (`aborted`), unbilled. */
  deadlineMs: number;
  /** Lease of a running check (config.leaseMs), for a keeper of the service's own. */
  leaseMs: number;
  now?: () => Date;
  log: Logger;
}

/**
 * The answer to a caller whose check this process lost: it stalled past the check's lease (a
 * pause of the whole process, the store out of reach for its renewals) and another process's
 * sweep failed and released the check (or, once the caller was told 202, ran it again). The
 * result this process holds is not the stored one, so it is not delivered. docs/interface-spec.md
 * lists 200, 202, 400, 401, 402, 429, 502 and 503 for the route: not 502, the engine and the mail
 * servers answered; 503, the service could not keep the check, nothing is billed, and asking again
 * (a new Idempotency-Key: this one names the failed check) starts a new one.
 */
const LEASE_LOST: Refusal = {
  kind: 'refused',
  code: 'service_unavailable',
  message: 'The check was lost while this node was stalled; it is not billed. Retry with a new Idempotency-Key.',
};

/** How a check ended: its record, or the refusal its waiting caller gets (nothing billed either way). */
type Settled = { ok: true; record: VerificationRecord } | { ok: false; refusal: Refusal };

export class VerifyService {
  private readonly inFlight = new Map<string, Promise<Settled>>();
  private readonly admission: CheckAdmission;
  /**
   * Checks that ended in an error whose release the store could not take (a full disk): written
   * failed at every renewal round until it can, and once more at shutdown, before any of them could be
   * taken for abandoned. (Were this process to die first, they were never marked resumable:
   * the sweep fails and releases them, it does not run and debit them.)
   */
  private readonly unreleased = new Set<string>();
  private readonly abort = new AbortController();
  private draining = false;
  private readonly now: () => Date;
  private readonly keeper: LeaseKeeper;
  /** Whether the keeper is this service's own (started and stopped with it). */
  private readonly ownKeeper: boolean;
  private started = false;
  private readonly evidence: EvidenceKeeper;

  constructor(private readonly options: VerifyServiceOptions) {
    this.now = options.now ?? (() => new Date());
    this.evidence = new EvidenceKeeper(options.evidence, options.log);
    this.admission = new CheckAdmission(options.limits);
    this.ownKeeper = !options.keeper;
    this.keeper = options.keeper ?? new LeaseKeeper({ leases: options.leases, leaseMs: options.leaseMs, clock: systemClock(this.now), log: options.log });
  }

  /** Resumes, at every renewal round of the keeper, the checks other processes abandoned (and releases what failed unreleased). */
  start(): void {
    if (this.started) return;
    this.started = true;
    this.keeper.takeOver('check', {
      room: () => {
        void this.releasePending();
        return this.draining ? 0 : Math.min(RESUME_BATCH, this.admission.free);
      },
      run: (record) => void this.resume(record),
    });
    if (this.ownKeeper) this.keeper.start();
  }

  private async resume(record: VerificationRecord): Promise<void> {
    if (this.inFlight.has(record.id)) return; // still ours: its renewal was only late
    this.options.log.info({ verificationId: record.id }, 'resuming an abandoned verification');
    try {
      // Read before a seat is taken: a read that fails leaves no seat occupied (the lease lapses and the check is taken again).
      const feedback = await this.feedbackOf(record);
      // Live checks hold a credit; sandbox ones are the unbilled ones.
      void this.run(record, engineFor(this.options.engines, !record.billable), this.admission.occupy(record.accountId), feedback);
    } catch (err) {
      this.options.log.warn({ err, verificationId: record.id }, 'could not resume an abandoned verification; its lease lapses and it is taken again');
    }
  }

  private async releasePending(): Promise<void> {
    for (const id of [...this.unreleased]) {
      try {
        await this.options.verifications.fail({ verificationId: id, now: this.now() });
        this.unreleased.delete(id);
        this.options.log.info({ verificationId: id }, 'a failed verification is released at last');
      } catch (err) {
        this.options.log.warn({ err, verificationId: id }, 'the store still cannot release a failed verification');
        return;
      }
    }
  }

  /**
   * A caller is told the check goes on (202): from now on it is resumed, not failed, should this
   * process die. `answeredAs`: the 202's requestId, which its `verification.completed` event repeats.
   */
  private async promise(record: VerificationRecord, answeredAs?: string): Promise<void> {
    await this.options.verifications.markResumable(record.id, answeredAs).catch((err: unknown) =>
      // Not resumable then: should this process die, the check is released unbilled, never billed unseen.
      this.options.log.warn({ err, verificationId: record.id }, 'could not mark a pending verification resumable'),
    );
  }

  get activeChecks(): number {
    return this.inFlight.size;
  }

  /** `answeredAs`: the requestId the answer will carry (a 202's is kept for the check's webhook event). */
  async verify(key: AuthenticatedKey, body: { email: string; timeoutMs?: number }, idempotencyKey: string, answeredAs?: string): Promise<VerifyOutcome> {
    const parsed = parseAddress(body.email);
    if (!parsed.ok) return { kind: 'refused', code: 'invalid_email', message: invalidAddressMessage('email', body.email) };
    if (this.draining) return { kind: 'refused', code: 'service_unavailable', message: 'The service is shutting down.' };
    const liveOff = liveChecksRefusal(key.mode, this.options.engines.liveChecksOff);
    if (liveOff) return liveOff;
    // Taken before the store is asked, so racing requests cannot all pass the caps; given back
    // unless a check of ours starts running on it.
    const seat = this.admission.admit(key.accountId, key.keyId);
    if (!isSeat(seat)) return this.replayWithoutSeat(key, body, idempotencyKey, seat, answeredAs);
    let running = false;
    try {
      const outcome = await this.begin(key, parsed.address.normalized, body, idempotencyKey, seat, answeredAs);
      running = outcome.running;
      return outcome.outcome;
    } finally {
      if (!running) seat.release();
    }
  }

  private async begin(
    key: AuthenticatedKey,
    email: string,
    body: { email: string; timeoutMs?: number },
    idempotencyKey: string,
    seat: Seat,
    answeredAs: string | undefined,
  ): Promise<{ outcome: VerifyOutcome; running: boolean }> {
    const timeoutMs = body.timeoutMs ?? DEFAULT_VERIFY_TIMEOUT_MS;
    const now = this.now();
    const sandbox = key.mode === 'test';
    const engine = engineFor(this.options.engines, sandbox);
    let started: StartVerificationOutcome;
    let feedback: FeedbackView;
    let ready: EngineResult | null = null;
    try {
      feedback = await this.feedbackOf({ accountId: key.accountId, email });
      // A result known without waiting (a hard bounce in the account's feedback, the sandbox) is stored by the write that creates the check.
      const known = feedback.answer({ accountId: key.accountId, email }) ?? engine.immediate?.(email) ?? null;
      ready = known ? feedback.apply({ accountId: key.accountId, email }, known) : null;
      const decided = ready ? await underAccountPolicy(this.options.policies, key.accountId, toStoredResult(ready)) : null;
      started = await this.options.verifications.start({
        accountId: key.accountId,
        keyId: key.keyId,
        email,
        billable: !sandbox,
        idempotency: idempotencyClaim(VERIFY_ROUTE, key.mode, idempotencyKey, body, now),
        now,
        lease: this.keeper.grant(),
        ...(decided ? { result: decided } : {}),
      });
    } catch (err) {
      // One transaction: nothing was held. A store that cannot write (a full disk) is a 503 the spec lists, not a 500.
      this.options.log.error({ err }, 'the store could not start a verification');
      return { outcome: { kind: 'refused', code: 'service_unavailable', message: 'The store cannot take the check now; nothing is billed. Retry later.' }, running: false };
    }
    switch (started.kind) {
      case 'idempotency_mismatch':
        return { outcome: { kind: 'refused', code: 'idempotency_key_reused' }, running: false };
      case 'insufficient_credits':
        return {
          outcome: { kind: 'refused', code: 'insufficient_credits', message: `This check needs 1 credit; ${Math.max(0, started.available)} available.` },
          running: false,
        };
      case 'replay':
        return { outcome: await this.replay(started.verification, timeoutMs, answeredAs), running: false };
      case 'created':
        break;
    }
    const record = started.verification;
    if (record.state === 'completed') {
      if (ready && record.result) this.evidence.keep(this.evidenceKey(record), ready, record.result);
      this.observe(record);
      return { outcome: { kind: 'completed', record, replayed: false }, running: false };
    }
    const run = this.run(record, engine, seat, feedback);
    return { outcome: await this.await(record, run, timeoutMs, false, answeredAs), running: true };
  }

  /**
   * Past a cap, a replay is still answered: it starts nothing (the check it names has its seat,
   * or has ended), so asking again for a 202's result never costs room nor meets a 429.
   */
  private async replayWithoutSeat(
    key: AuthenticatedKey,
    body: { email: string; timeoutMs?: number },
    idempotencyKey: string,
    refusal: Refusal,
    answeredAs: string | undefined,
  ): Promise<VerifyOutcome> {
    const now = this.now();
    const known = await this.options.verifications.findReplay({ accountId: key.accountId, idempotency: idempotencyClaim(VERIFY_ROUTE, key.mode, idempotencyKey, body, now), now });
    if (known?.kind === 'replay') return this.replay(known.verification, body.timeoutMs ?? DEFAULT_VERIFY_TIMEOUT_MS, answeredAs);
    if (known?.kind === 'idempotency_mismatch') return { kind: 'refused', code: 'idempotency_key_reused' };
    return refusal;
  }

  /** The same verification as it stands now (docs/design.md §4): billed once, never run twice. */
  private async replay(record: VerificationRecord, timeoutMs: number, answeredAs: string | undefined): Promise<VerifyOutcome> {
    if (record.state === 'completed') return { kind: 'completed', record, replayed: true };
    if (record.state === 'failed') return { kind: 'refused', code: 'engine_unavailable' };
    const running = this.inFlight.get(record.id);
    if (!running) {
      await this.promise(record, answeredAs);
      return { kind: 'pending', record, replayed: true };
    }
    return this.await(record, running, timeoutMs, true, answeredAs);
  }

  private async await(record: VerificationRecord, run: Promise<Settled>, timeoutMs: number, replayed: boolean, answeredAs: string | undefined): Promise<VerifyOutcome> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), timeoutMs);
    });
    const settled = await Promise.race([run, timeout]);
    clearTimeout(timer);
    if (settled === 'timeout') {
      await this.promise(record, answeredAs);
      return { kind: 'pending', record, replayed };
    }
    if (!settled.ok) return settled.refusal;
    return { kind: 'completed', record: settled.record, replayed };
  }

  private feedbackOf(check: { accountId: string; email: string }): Promise<FeedbackView> {
    return readFeedback(this.options.feedback, [check], this.now());
  }

  /** Runs the check on `seat`, given back when it ends. */
  private run(record: VerificationRecord, engine: Engine, seat: Seat, feedback: FeedbackView): Promise<Settled> {
    const { verifications } = this.options;
    // Shutdown or the check's own deadline, whichever comes first, ends its waits and probes.
    // Sandbox checks meet no host and keep their documented timing (`slow@` outlasts every wait).
    const signal = record.billable ? AbortSignal.any([this.abort.signal, AbortSignal.timeout(this.options.deadlineMs)]) : this.abort.signal;
    const work = (async (): Promise<Settled> => {
      let result: EngineResult;
      try {
        result = feedback.apply(record, await engine.verify(record.email, { signal, explain: this.evidence.enabled }));
      } catch (err) {
        // The engine never throws for an address's behaviour; a throw is a bug or an outage (502).
        this.options.log.warn({ err, verificationId: record.id }, 'single verification failed');
        return this.failed(record, { kind: 'refused', code: 'engine_unavailable' });
      }
      try {
        const decided = await underAccountPolicy(this.options.policies, record.accountId, toStoredResult(result));
        const stored = await verifications.complete({ verificationId: record.id, result: decided, now: this.now() });
        if (stored.state !== 'completed' || !stored.result) {
          this.options.log.warn({ verificationId: record.id, state: stored.state }, 'a verification was ended by another process while this one ran it (its lease lapsed)');
          return { ok: false, refusal: LEASE_LOST };
        }
        // Not awaited: the evidence of many checks shares one write; the answer does not wait for it.
        this.evidence.keep(this.evidenceKey(record), result, stored.result);
        this.observe(stored);
        return { ok: true, record: stored };
      } catch (err) {
        // A full disk, a lost permission: the result cannot be recorded, so it is not delivered either (503).
        this.options.log.warn({ err, verificationId: record.id }, 'the store could not record a verification');
        return this.failed(record, { kind: 'refused', code: 'service_unavailable', message: 'The store cannot record the check now; it is not billed. Retry later.' });
      }
    })();
    this.inFlight.set(record.id, work);
    // A lease lost (another process took the check over after a stall, or failed it) is not
    // acted on here: the store's `complete` tells which run's result counts.
    this.keeper.hold('check', record.id, () => {
      if (this.inFlight.get(record.id) === work) this.options.log.warn({ verificationId: record.id }, 'the lease of a running verification was lost; the store keeps whichever result it has first');
    });
    void work.finally(() => {
      this.keeper.drop('check', [record.id]);
      this.inFlight.delete(record.id);
      seat.release();
    });
    return work;
  }

  /** Ends a check in error: failed and released now, or as soon as the store can write (releasePending). */
  private async failed(record: VerificationRecord, refusal: Refusal): Promise<Settled> {
    try {
      await this.options.verifications.fail({ verificationId: record.id, now: this.now() });
    } catch (err) {
      this.options.log.warn({ err, verificationId: record.id }, 'could not mark a verification failed; retrying at each renewal round');
      this.unreleased.add(record.id);
    }
    return { ok: false, refusal };
  }

  /** Resolves once the evidence of the checks ended so far is written (the dashboard reads it right after). */
  evidenceWritten(): Promise<void> {
    return this.evidence.flush();
  }

  /** A single check's evidence is kept by its verification's id (docs/evidence.md). */
  private evidenceKey(record: VerificationRecord) {
    return { accountId: record.accountId, checkId: record.id, email: record.email, kind: 'check' as const, now: this.now() };
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
    const all = Promise.allSettled([...this.inFlight.values()]);
    let timer: NodeJS.Timeout | undefined;
    const grace = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, graceMs);
    });
    await Promise.race([all, grace]);
    clearTimeout(timer);
    this.abort.abort();
    await Promise.allSettled([...this.inFlight.values()]);
    await this.releasePending();
    await this.evidence.flush();
    if (this.ownKeeper) await this.keeper.stop();
  }

  get isDraining(): boolean {
    return this.draining;
  }
}
