/**
 * "Last use" of API keys, for the dashboard's key list. Authentication looks every key up; this
 * wraps that lookup and records the use, at most once a minute per key and process, written in
 * the background: a request never waits for it, and a busy key costs one write a minute, not
 * one per request.
 */
import type { AccountsRole } from '../../store/roles/accounts.js';
import type { KeyManagementRole } from '../../store/roles/key-management.js';
import type { Logger } from '../../logger.js';
import { silentLogger } from '../../logger.js';

const RECORD_EVERY_MS = 60_000;
const FLUSH_EVERY_MS = 5_000;

export class KeyUsageRecorder {
  private readonly lastRecorded = new Map<string, number>();
  private pending = new Map<string, Date>();
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly keys: Pick<KeyManagementRole, 'noteKeyUse'>,
    private readonly now: () => Date = () => new Date(),
    private readonly log: Logger = silentLogger,
  ) {
    this.timer = setInterval(() => void this.flush(), FLUSH_EVERY_MS);
    this.timer.unref();
  }

  /** The accounts role whose key lookups count as uses. */
  wrap(accounts: AccountsRole): AccountsRole {
    return {
      ...accounts,
      findActiveKey: async (hash) => {
        const found = await accounts.findActiveKey(hash);
        if (found) this.note(found.keyId);
        return found;
      },
    };
  }

  note(keyId: string): void {
    const at = this.now();
    const last = this.lastRecorded.get(keyId);
    if (last !== undefined && at.getTime() - last < RECORD_EVERY_MS) return;
    this.lastRecorded.set(keyId, at.getTime());
    // Bounded: past this, forgetting only means an extra write for a key seen again.
    if (this.lastRecorded.size > 100_000) this.lastRecorded.clear();
    this.pending.set(keyId, at);
  }

  /** Writes the uses noted since the last flush. */
  async flush(): Promise<void> {
    if (this.pending.size === 0) return;
    const batch = this.pending;
    this.pending = new Map();
    try {
      await this.keys.noteKeyUse([...batch].map(([keyId, at]) => ({ keyId, at })));
    } catch (err) {
      this.log.warn({ err }, 'recording key use failed');
    }
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }
}
