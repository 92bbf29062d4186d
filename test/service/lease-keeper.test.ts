/**
 * The lease keeper over the store's one lease primitive, on both stores, with an injected clock:
 * it renews at its fraction of the lease, tells a work's owner when its lease was lost, hands work
 * back, takes over lapsed work; and a feedback import whose process stops renewing ends failed,
 * never `running` (issue 24).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LeaseKeeper, LeaseLost } from '../../src/service/leases/lease-keeper.js';
import type { LeaseClock } from '../../src/service/leases/lease-keeper.js';
import { importFeedback } from '../../src/service/feedback/feedback-import.js';
import type { FeedbackPiece } from '../../src/service/feedback/feedback-import.js';
import type { Backend } from '../../src/store/backend.js';
import { silentLogger } from '../../src/logger.js';
import { describeOnEveryBackend, openStore } from '../backends.js';
import type { BackendName } from '../backends.js';
import { until } from '../until.js';

const T0 = new Date('2031-01-01T00:00:00.000Z');
const LEASE_MS = 3_000;

/** A clock the test moves; its timers fire only when the test advances it. */
function manualClock(): LeaseClock & { advance(ms: number): void; periods: number[] } {
  let now = T0.getTime();
  const timers = new Set<{ ms: number; next: number; tick: () => void }>();
  const periods: number[] = [];
  return {
    now: () => new Date(now),
    periods,
    every(ms, tick) {
      periods.push(ms);
      const timer = { ms, next: now + ms, tick };
      timers.add(timer);
      return () => timers.delete(timer);
    },
    advance(ms) {
      now += ms;
      for (const timer of timers) {
        while (timer.next <= now) {
          timer.next += timer.ms;
          timer.tick();
        }
      }
    },
  };
}

function keeperOn(backend: Backend, owner: string, clock: LeaseClock): LeaseKeeper {
  return new LeaseKeeper({ leases: backend.leases, leaseMs: LEASE_MS, owner, clock, log: silentLogger });
}

/** A running check leased to `keeper`, which holds it; its caller was told 202, so another node may take it over. */
async function heldCheck(backend: Backend, keeper: LeaseKeeper, onLost?: (lost: LeaseLost) => void): Promise<{ id: string; signal: AbortSignal }> {
  const account = await backend.accounts.createAccount({ name: `keeper-${Math.random()}`, credits: 1, now: T0 });
  assert.ok(account);
  const started = await backend.verifications.start({
    accountId: account.id,
    keyId: 'k',
    email: 'deliverable@keeper.example',
    billable: true,
    idempotency: { route: 'POST /v1/verify', key: `k-${Math.random()}`, bodyHash: 'b', expiresAt: new Date(T0.getTime() + 86_400_000).toISOString() },
    now: T0,
    lease: keeper.grant(),
  });
  assert.equal(started.kind, 'created');
  if (started.kind !== 'created') throw new Error('not created');
  await backend.verifications.markResumable(started.verification.id);
  return { id: started.verification.id, signal: keeper.hold('check', started.verification.id, onLost) };
}

function cases(name: BackendName): void {
  test('the keeper renews every third of the lease: work it holds never lapses, and lapses once it stops', async () => {
    const store = await openStore(name);
    try {
      const clock = manualClock();
      const keeper = keeperOn(store.backend, 'node#a', clock);
      const importId = await store.backend.feedback.startImport({ accountId: (await store.backend.accounts.createAccount({ name: 'renew', credits: 0, now: T0 }))!.id, source: 'csv', name: 'f.csv', now: T0, lease: keeper.grant() });
      keeper.hold('feedbackImport', importId);
      keeper.start();
      assert.deepEqual(clock.periods, [LEASE_MS / 3]);
      for (let step = 0; step < 6; step++) {
        clock.advance(LEASE_MS / 3);
        await keeper.tick();
      }
      // Six renewals later the lease runs to T0 + 2 leases + a lease: not lapsed a whole lease after T0.
      assert.equal(await store.backend.leases.endLapsed('feedbackImport', new Date(T0.getTime() + 2 * LEASE_MS + 1)), 0, 'renewed: not lapsed');
      await keeper.stop();
      assert.equal(await store.backend.leases.endLapsed('feedbackImport', new Date(T0.getTime() + 3 * LEASE_MS + 1)), 1, 'no longer renewed: lapsed and ended');
    } finally {
      await store.close();
    }
  });

  test('a lease another node took over is reported lost: the owner is called back and its signal aborts', async () => {
    const store = await openStore(name);
    try {
      const clock = manualClock();
      const stalled = keeperOn(store.backend, 'node#stalled', clock);
      const told: LeaseLost[] = [];
      const check = await heldCheck(store.backend, stalled, (lost) => told.push(lost));
      // The stalled node renews nothing; another node's keeper, a lease later, takes the check over.
      clock.advance(LEASE_MS + 1);
      const other = keeperOn(store.backend, 'node#other', clock);
      const resumed: string[] = [];
      other.takeOver('check', { room: () => 10, run: (record) => resumed.push(record.id) });
      await other.tick();
      assert.deepEqual(resumed, [check.id]);
      assert.equal(check.signal.aborted, false, 'the stalled node does not know yet');
      await stalled.tick();
      assert.equal(told.length, 1);
      assert.ok(told[0] instanceof LeaseLost);
      assert.ok(check.signal.aborted && check.signal.reason instanceof LeaseLost);
      assert.equal(stalled.holds('check', check.id), false, 'no longer renewed by the node that lost it');
      await other.tick();
      assert.deepEqual(resumed, [check.id], 'the new holder is not handed it again');
    } finally {
      await store.close();
    }
  });

  test('work handed back is taken by the next taker at once, before its lease would have ended', async () => {
    const store = await openStore(name);
    try {
      const clock = manualClock();
      const leaving = keeperOn(store.backend, 'node#leaving', clock);
      const check = await heldCheck(store.backend, leaving);
      await leaving.release('check', [check.id]);
      assert.equal(leaving.holds('check', check.id), false);
      clock.advance(1);
      const taken = await store.backend.leases.takeLapsed('check', { owner: 'node#next', now: clock.now(), until: new Date(clock.now().getTime() + LEASE_MS), limit: 10 });
      assert.deepEqual(
        taken.map((r) => r.id),
        [check.id],
      );
    } finally {
      await store.close();
    }
  });

  test('a feedback import whose process stops renewing ends failed, never running; were the process only stalled, it stops when it hears', async () => {
    const store = await openStore(name);
    try {
      const clock = manualClock();
      const account = await store.backend.accounts.createAccount({ name: 'feedback-lapse', credits: 0, now: T0 });
      assert.ok(account);
      const importer = keeperOn(store.backend, 'cli#importer', clock);
      let resume!: () => void;
      const stalled = new Promise<void>((resolve) => (resume = resolve));
      let reached!: () => void;
      const atStall = new Promise<void>((resolve) => (reached = resolve));
      async function* pieces(): AsyncGenerator<FeedbackPiece> {
        yield { where: 'line 2', problem: 'not an event' };
        reached();
        // The process freezes here (a kill -STOP, a machine that hangs): its keeper renews nothing.
        await stalled;
        yield { where: 'line 3', problem: 'not an event' };
      }
      const running = importFeedback({ feedback: store.backend.feedback, accountId: account.id, source: 'csv', name: 'events.csv', pieces: pieces(), now: clock.now, chunkEvents: 1, keeper: importer });
      await atStall;
      await until('the first chunk recorded', async () => ((await store.backend.feedback.imports(account.id, 1))[0]?.rejected === 1 ? true : null));
      assert.equal((await store.backend.feedback.imports(account.id, 1))[0]?.state, 'running');

      // A serving node's keeper, a lease later, ends the import.
      clock.advance(LEASE_MS + 1);
      const serving = keeperOn(store.backend, 'serve#1', clock);
      serving.endLapsed('feedbackImport');
      await serving.tick();
      const [ended] = await store.backend.feedback.imports(account.id, 1);
      assert.deepEqual([ended?.state, ended?.rejected, ended?.finishedAt !== null], ['failed', 1, true], 'ended failed with what it recorded');

      // The importer wakes: its keeper hears the lease is gone, and the import stops reading.
      await importer.tick();
      resume();
      const report = await running;
      assert.equal(report.import.state, 'failed');
      assert.match(report.stoppedBy ?? '', /lease/);
      assert.equal((await store.backend.feedback.imports(account.id, 1))[0]?.rejected, 1, 'nothing recorded after the lease was lost');
    } finally {
      await store.close();
    }
  });
}

describeOnEveryBackend('the lease keeper', cases);
