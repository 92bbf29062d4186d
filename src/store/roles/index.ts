/**
 * Serves every role: assembles a backend. A backend assembled: the roles every dialect shares (the transaction scripts of this folder,
 * over the dialect's query interface and its claim and bulk writes), with what each dialect owns
 * — rate limits, engine state, wake-ups — and one `close` for all of it.
 *
 * Adding a role: its file here (its interface, its records, one function per use case over
 * `Db`), its field on `Backend` (src/store/backend.ts), one line below, and its tables as the next
 * numbered migration of both dialects (docs/architecture.md, "Adding a role").
 */
import type { AccountsRole } from './accounts.js';
import type { Backend } from '../backend.js';
import type { EngineStateRole } from './engine-state.js';
import type { KeyManagementRole } from './key-management.js';
import type { RateLimitsRole } from './rate-limits.js';
import type { Db } from '../sql.js';
import type { ClaimedItem } from './work-queue.js';
import type { WakeUps } from '../../queue/queue.js';
import { accountsRole } from './accounts.js';
import { batchesRole } from './batches/batches.js';
import type { DialectParts } from './dialect-parts.js';
import { ledgerRole } from './ledger.js';
import { listsRole } from './lists.js';
import { listBatchesRole } from './list-batches.js';
import { retentionRole } from './retention.js';
import { verificationsRole } from './verifications.js';
import { workQueueRole } from './work-queue.js';
import { leasesRole } from './leases.js';
import { accountViewsRole } from './account-views.js';
import { keyManagementRole } from './key-management.js';
import { listFilesRole } from './list-files.js';
import { loginThrottleRole } from './login-throttle.js';
import { ownerSessionsRole } from './owner-sessions.js';
import { usersRole } from './users.js';
import { webhooksRole } from './webhooks/webhooks.js';
import { proberRepliesRole } from './prober-replies.js';
import { policiesRole } from './policies.js';
import { evidenceRole } from './evidence.js';
import { feedbackRole } from './feedback/feedback.js';

export interface DialectOwned {
  kind: Backend['kind'];
  rateLimits: RateLimitsRole;
  engineState: EngineStateRole;
  wakeUps: WakeUps;
  /** The dialect's engine state past its expiry (retention). */
  purgeEngineState(): Promise<void>;
  /** A layer over the shared accounts role (SQLite caches key lookups). */
  wrapAccounts?(accounts: AccountsRole): AccountsRole;
  /** A layer over the shared key management role (SQLite drops its key cache on a revocation). */
  wrapKeyManagement?(keys: KeyManagementRole): KeyManagementRole;
  /** Closes what the dialect opened beside `db`, after the last write. */
  closeMore?(): Promise<void>;
}

export function assembleBackend(db: Db, parts: DialectParts, own: DialectOwned): Backend {
  const accounts = accountsRole(db, parts.bulk);
  const batches = batchesRole(db, parts.bulk, parts.resultsPerWrite);
  const keyManagement = keyManagementRole(db);
  let closing: Promise<void> | null = null;
  return {
    kind: own.kind,
    accounts: own.wrapAccounts ? own.wrapAccounts(accounts) : accounts,
    ledger: ledgerRole(db, parts.bulk),
    verifications: verificationsRole(db, parts.bulk),
    batches,
    lists: listsRole(db, parts.bulk),
    listBatches: listBatchesRole(db, parts.bulk),
    rateLimits: own.rateLimits,
    leases: leasesRole(db, parts.bulk),
    work: workQueueRole(db, parts, own.wakeUps),
    engineState: own.engineState,
    retention: retentionRole(db, own.purgeEngineState),
    users: usersRole(db),
    ownerSessions: ownerSessionsRole(db),
    loginThrottle: loginThrottleRole(db),
    keyManagement: own.wrapKeyManagement ? own.wrapKeyManagement(keyManagement) : keyManagement,
    listFiles: listFilesRole(db),
    accountViews: accountViewsRole(db),
    webhooks: webhooksRole(db),
    proberReplies: proberRepliesRole(db),
    policies: policiesRole(db),
    feedback: feedbackRole(db),
    evidence: evidenceRole(db),
    migrate: () => db.migrate(),
    async ping() {
      await db.get('SELECT 1');
    },
    async probeWrite(now) {
      await db.write(async (tx) => tx.run('INSERT INTO ready_probe (id, probed_at) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET probed_at = excluded.probed_at', [now]));
    },
    close() {
      closing ??= (async () => {
        await own.wakeUps.close();
        await batches.idle(); // results handed in are written before the connection closes
        await db.close();
        await own.closeMore?.();
      })();
      return closing;
    },
  };
}

/** Claimed rows as the work queue hands them out, in the order the claim picked them. */
export function toClaimedItems(
  ids: readonly number[],
  rows: ReadonlyArray<{ id: number; request_id: string; account_id: string; email: string; domain: string; sandbox: boolean | number; attempts: number; rechecks: number }>,
): ClaimedItem[] {
  const order = new Map(ids.map((id, i) => [id, i]));
  return [...rows]
    .sort((a, b) => (order.get(a.id) ?? 0) - (order.get(b.id) ?? 0))
    .map((r) => ({
      itemId: r.id,
      requestId: r.request_id,
      accountId: r.account_id,
      email: r.email,
      domain: r.domain,
      sandbox: Boolean(r.sandbox),
      attempts: r.attempts - 1,
      rechecks: r.rechecks,
    }));
}
