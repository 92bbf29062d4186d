/**
 * Who may start a single check now (issue 12, the noisy neighbour): the checks running in this
 * process counted per account and per key. Three caps, first hit wins:
 * - the process-wide cap (config.maxRunningChecks): 503, the service is full;
 * - the account's fair share of it, `floor(cap / (accounts running checks + 1))`, the +1
 *   keeping room for an account that has none yet: one account, or a few, can never fill the
 *   process, so another account's check still gets in;
 * - the account cap and the key cap (config.maxRunningChecksPerAccount / PerKey).
 * Beyond the last two the caller is told to slow down (429 with Retry-After), as for its rate
 * limit: its own checks hold the room, and they free it as they end.
 */
import type { Refusal } from '../errors.js';

export interface AdmissionLimits {
  /** Checks running at once in this process. */
  total: number;
  perAccount: number;
  perKey: number;
}

/** What a refused caller waits before asking again: a running check ends in about that time or frees its room at its deadline. */
export const ADMISSION_RETRY_AFTER_SECONDS = 1;

/** A seat taken by one running check; `release()` gives it back (once). */
export interface Seat {
  release(): void;
}

function bump(map: Map<string, number>, key: string, by: number): void {
  const next = (map.get(key) ?? 0) + by;
  if (next <= 0) map.delete(key);
  else map.set(key, next);
}

export class CheckAdmission {
  private total = 0;
  private readonly byAccount = new Map<string, number>();
  private readonly byKey = new Map<string, number>();

  constructor(private readonly limits: AdmissionLimits) {}

  get running(): number {
    return this.total;
  }

  get free(): number {
    return this.limits.total - this.total;
  }

  /** The largest number of checks `accountId` may run now. */
  private shareOf(accountId: string): number {
    const others = this.byAccount.size - (this.byAccount.has(accountId) ? 1 : 0);
    const fair = Math.max(1, Math.floor(this.limits.total / (others + 2)));
    return Math.min(this.limits.perAccount, fair);
  }

  /** A seat for a new check of `accountId` through `keyId`, or why not. */
  admit(accountId: string, keyId: string): Seat | Refusal {
    if (this.total >= this.limits.total) {
      return { kind: 'refused', code: 'service_unavailable', message: 'Too many checks in progress; retry later.' };
    }
    const account = this.byAccount.get(accountId) ?? 0;
    if ((this.byKey.get(keyId) ?? 0) >= this.limits.perKey) {
      return this.slowDown(`This key has ${this.limits.perKey} checks running, its limit; retry when one has ended.`);
    }
    const share = this.shareOf(accountId);
    if (account >= share) {
      return this.slowDown(`This account has ${account} checks running, its limit now (${share}); retry when one has ended.`);
    }
    return this.seat(accountId, keyId);
  }

  /** A seat for a check this process takes over (a resumed one): counted, never refused. */
  occupy(accountId: string): Seat {
    return this.seat(accountId, null);
  }

  private slowDown(message: string): Refusal {
    return { kind: 'refused', code: 'rate_limited', message, retryAfterSeconds: ADMISSION_RETRY_AFTER_SECONDS };
  }

  private seat(accountId: string, keyId: string | null): Seat {
    this.total++;
    bump(this.byAccount, accountId, 1);
    if (keyId !== null) bump(this.byKey, keyId, 1);
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        this.total--;
        bump(this.byAccount, accountId, -1);
        if (keyId !== null) bump(this.byKey, keyId, -1);
      },
    };
  }
}

export function isSeat(value: Seat | Refusal): value is Seat {
  return !('kind' in value);
}
