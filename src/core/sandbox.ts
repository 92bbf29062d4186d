/**
 * The sandbox engine for `ps_test.` keys (docs/design.md §3): no network, deterministic results
 * driven by the local part (`undeliverable+42@x` behaves as `undeliverable@x`). The syntax
 * check still runs first, so sandbox callers see the same 400s as live ones.
 */
import type { AddressTraits, Classification } from './classify-finding.js';
import { buildResult } from './envelope.js';
import { systemClock, type Clock, type Engine, type VerifyOptions } from './ports.js';
import { parseAddress } from './syntax/address.js';
import type { EngineResult, PublicVerdict, ReasonCode } from './types.js';

/** Longer than any timeoutMs (max 120 000 ms), so a caller of `slow@` always sees a 202. */
export const SANDBOX_SLOW_DELAY_MS = 125_000;

export interface SandboxOptions {
  /** Delay of `slow@` addresses; service tests shorten it. */
  slowDelayMs?: number;
  recheckDelayMs?: number;
}

type Row = { verdict: PublicVerdict; reason: ReasonCode; confidence: number | null };

const ROWS: Record<string, Row> = {
  deliverable: { verdict: 'DELIVERABLE', reason: 'smtp_rcpt_accepted', confidence: 0.95 },
  undeliverable: { verdict: 'UNDELIVERABLE_NO_MAILBOX', reason: 'mailbox_not_found', confidence: 0.97 },
  catchall: { verdict: 'CATCH_ALL', reason: 'catch_all_domain', confidence: 0.6 },
  full: { verdict: 'MAILBOX_FULL', reason: 'mailbox_full', confidence: 0.9 },
  disposable: { verdict: 'DISPOSABLE', reason: 'disposable_domain', confidence: 0.98 },
  role: { verdict: 'ROLE', reason: 'role_account', confidence: 0.9 },
  greylisted: { verdict: 'GREYLISTED', reason: 'greylisted', confidence: null },
  transient: { verdict: 'TRANSIENT', reason: 'temporary_failure', confidence: null },
  unknown: { verdict: 'UNKNOWN', reason: 'probe_blocked', confidence: null },
  spamtrap: { verdict: 'SPAMTRAP', reason: 'spamtrap', confidence: 0.99 },
};

const DELIVERABLE: Row = { verdict: 'DELIVERABLE', reason: 'smtp_rcpt_accepted', confidence: 0.95 };

const TRAITS: AddressTraits = { role: false, free: false, didYouMean: null, providerFamily: null };

/** `Undeliverable+42` → `undeliverable`: the sub-address tag never changes the result. */
export function sandboxKey(localPart: string): string {
  return (localPart.replace(/^"|"$/g, '').split('+')[0] ?? '').toLowerCase();
}

export function createSandboxEngine(clock: Clock = systemClock, options: SandboxOptions = {}): Engine {
  const slowDelayMs = options.slowDelayMs ?? SANDBOX_SLOW_DELAY_MS;
  const recheckDelayMs = options.recheckDelayMs ?? 300_000;
  const closing = new AbortController();

  const finish = (input: string, email: string, classification: Classification): EngineResult =>
    buildResult(classification, TRAITS, { now: clock.now(), recheckDelayMs }, { input, email, attempts: 0, mxHost: null });

  const row = (r: Row): Classification => ({ verdict: r.verdict, reasons: [r.reason, 'sandbox'], confidence: r.confidence, evidence: 'sandbox' });

  /** Resolves after the delay, or early when the caller or close() aborts. */
  const slow = (signal?: AbortSignal): Promise<boolean> =>
    new Promise((resolve) => {
      const signals = [closing.signal, ...(signal ? [signal] : [])];
      if (signals.some((s) => s.aborted)) return resolve(false);
      const done = (completed: boolean): void => {
        clearTimeout(timer);
        for (const s of signals) s.removeEventListener('abort', onAbort);
        resolve(completed);
      };
      const onAbort = (): void => done(false);
      const timer = setTimeout(() => done(true), slowDelayMs);
      for (const s of signals) s.addEventListener('abort', onAbort, { once: true });
    });

  /** The result of every address but `slow@`, which needs its wait (null). */
  function immediate(input: string): EngineResult | null {
    const parsed = parseAddress(input);
    if (!parsed.ok) {
      const reasons: ReasonCode[] = parsed.error === 'domain_literal' ? ['invalid_syntax', 'domain_literal'] : ['invalid_syntax'];
      return finish(input, input.trim(), { verdict: null, reasons, confidence: null, evidence: 'syntax' });
    }
    const key = sandboxKey(parsed.address.localPart);
    if (key === 'slow') return null;
    return finish(input, parsed.address.normalized, row(ROWS[key] ?? DELIVERABLE));
  }

  async function verify(input: string, verifyOptions: VerifyOptions = {}): Promise<EngineResult> {
    const ready = immediate(input);
    if (ready) return ready;
    // Only a well-formed `slow@` address gets here (parsed once more: rare, and keeps one path).
    const parsed = parseAddress(input);
    const email = parsed.ok ? parsed.address.normalized : input.trim();
    const completed = await slow(verifyOptions.signal);
    if (!completed) return finish(input, email, { verdict: 'TRANSIENT', reasons: ['aborted', 'sandbox'], confidence: null, evidence: null });
    return finish(input, email, row(DELIVERABLE));
  }

  return {
    verify,
    immediate,
    async verifyMany(addresses, onResult, verifyOptions) {
      await Promise.all(addresses.map(async (address) => onResult(await verify(address, verifyOptions))));
    },
    close() {
      closing.abort();
      return Promise.resolve();
    },
  };
}
