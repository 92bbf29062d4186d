/**
 * A recipient waiting in its host's queue, and what happens to it when the host did not answer
 * about it: put back for a later session, or settled. Kept apart from the queue's talking
 * (host-queue.ts) so each decision reads, and is tested, on its own.
 *
 * The line this file keeps (as Postfix's own client does, qmgr(8)): an attempt is the address
 * itself asked and answered "later" — or asked and left without a word (a timeout, a drop out
 * of the blue). A host that pauses — a throttling reply about the client, a 421 at the greeting
 * or one asking for time, a group it cut at a limit — has said nothing about the address: the
 * address goes back and keeps its attempts. A host that stays paused past
 * `hostThrottleBoundMs` leaves its unasked addresses `host_throttled` (recheck_scheduled with a
 * retry window, classify-finding.ts), never a verdict and never TRANSIENT.
 */
import type { SmtpReply } from '../replies/parse.js';
import type { SessionFailure } from './session.js';
import type { EvidenceRecorder } from '../evidence/recorder.js';

export interface ProbeTarget {
  /** `local@domain`, local part as given, domain in A-label form. */
  recipient: string;
  needsUtf8: boolean;
  /** Catch-all probes jump the queue (accepted answers wait for them); counted as a sure refusal. */
  urgent?: boolean;
  /** Where the check keeps its part of the conversation (evidence/recorder.ts); absent: nothing is kept. */
  evidence?: EvidenceRecorder;
}

export type HostOutcome =
  | { kind: 'reply'; reply: SmtpReply }
  | { kind: 'mail_rejected'; reply: SmtpReply }
  | { kind: 'utf8_unsupported' }
  | { kind: 'failure'; failure: SessionFailure }
  /** The host kept pausing us past the bound: the address was never asked (or never answered about itself). */
  | { kind: 'host_throttled'; reply: SmtpReply | null; detail: string }
  | { kind: 'aborted' };

/** `failover`: the host could not be used at all; try the next MX. */
export type HostResult = { kind: 'final'; outcome: HostOutcome; attempts: number } | { kind: 'failover'; failure: SessionFailure; attempts: number };

/** Called with a recipient's result and the target it was enqueued with (one callback can serve many). */
export type HostResultListener = (result: HostResult, target: ProbeTarget) => void;

/** One recipient waiting for (or in) a transaction; settles once. A class, not closures: batches make thousands. */
export class Entry {
  /** Times the address itself was asked and told "later", or left without a word. */
  attempts = 0;
  requeues = 0;
  /** Times a group it was in was cut by the host after the host had answered part of it (progress, not a refusal). */
  cuts = 0;
  /** When the host first paused while this recipient waited unasked; null until it did. */
  pausedSince: number | null = null;
  settled = false;
  unlisten: (() => void) | null = null;

  constructor(
    readonly target: ProbeTarget,
    private readonly resolve: HostResultListener,
  ) {}

  settle(result: HostResult): void {
    if (this.settled) return;
    this.settled = true;
    this.unlisten?.();
    this.resolve(result, this.target);
  }

  /** Final with an outcome, its attempts as they stand. */
  end(outcome: HostOutcome): void {
    this.settle({ kind: 'final', outcome, attempts: this.attempts });
  }
}

export interface PutBackRules {
  now: number;
  /** The queue is closing: whatever waits ends `aborted`. */
  closing: boolean;
  /** Times an address may go back because the host refused or cut it (not paused). */
  maxRequeues: number;
  /** How long the host may keep pausing an unasked address before it ends `host_throttled`. */
  hostThrottleBoundMs: number;
}

/** Where one entry goes: back to the queue, or final with this outcome. */
type Fate = HostOutcome | 'back';

const ABORTED: HostOutcome = { kind: 'aborted' };

/** The one loop of every put-back: settled entries are skipped, each other one goes back or ends as `fateOf` decides. */
function sortOut(entries: readonly Entry[], fateOf: (entry: Entry) => Fate): Entry[] {
  const back: Entry[] = [];
  for (const entry of entries) {
    if (entry.settled) continue;
    const fate = fateOf(entry);
    if (fate === 'back') back.push(entry);
    else entry.end(fate);
  }
  return back;
}

/**
 * The host paused (a throttling reply about the client, a 421 at the greeting, a 421 asking for
 * time): the entries were not asked about themselves. Returns those to put back; the ones the
 * host has kept waiting past the bound end `host_throttled`.
 */
export function afterHostPause(entries: readonly Entry[], rules: PutBackRules, reply: SmtpReply | null, detail: string): Entry[] {
  return sortOut(entries, (entry) => {
    entry.pausedSince ??= rules.now;
    if (rules.closing) return ABORTED;
    return rules.now - entry.pausedSince > rules.hostThrottleBoundMs ? { kind: 'host_throttled', reply, detail } : 'back';
  });
}

/**
 * The host refused or broke the group under these entries (a 452 4.5.3, replies out of step, a
 * cut counted as a refusal): back, unless the host has done so too often (then final, as `failure`).
 */
export function afterRefusal(entries: readonly Entry[], rules: PutBackRules, failure: SessionFailure): Entry[] {
  return sortOut(entries, (entry) => {
    if (rules.closing) return ABORTED;
    return ++entry.requeues > rules.maxRequeues ? { kind: 'failure', failure } : 'back';
  });
}

/**
 * Back after a group the host cut once it had answered part of it. Such a cut is progress — the
 * host's limit is being learnt and the next groups fit it — so it does not use up the entries'
 * refusals (`maxRequeues`); it has a bound of its own, as many cuts, past which further cuts
 * count as refusals.
 */
export function afterCut(entries: readonly Entry[], rules: PutBackRules, failure: SessionFailure): Entry[] {
  const cut = sortOut(entries, () => (rules.closing ? ABORTED : 'back'));
  for (const entry of cut) entry.cuts++;
  const tooOften = (entry: Entry): boolean => entry.cuts > rules.maxRequeues;
  return [...afterRefusal(cut.filter(tooOften), rules, failure), ...cut.filter((entry) => !tooOften(entry))];
}

/**
 * Asked and left without a word by something not the host's doing (a timeout, a drop out of the
 * blue): that is the address's attempt; `maxAttempts` of those end it as `failure`.
 */
export function afterSilence(entries: readonly Entry[], maxAttempts: number, failure: SessionFailure): Entry[] {
  return sortOut(entries, (entry) => (++entry.attempts >= maxAttempts ? { kind: 'failure', failure } : 'back'));
}

/**
 * No session could be opened, for a reason about the host, not a pause: each waiting entry has
 * had its attempt. An unreachable host passes them to the next MX (`failover`); a host that
 * answered (a 554 banner, garbage) has spoken for the domain, and they end as `failure`.
 */
export function afterUnusableHost(entries: readonly Entry[], failure: SessionFailure, unreachable: boolean): void {
  for (const entry of entries) {
    entry.attempts++;
    if (unreachable) entry.settle({ kind: 'failover', failure, attempts: entry.attempts });
    else entry.end({ kind: 'failure', failure });
  }
}
