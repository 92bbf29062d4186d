/**
 * Step 1 of issue #11: the roles of src/store/backend.ts over the one-piece stores of each
 * dialect, while their transactions are rewritten once (step 2 replaces this file).
 */
import type { Backend, EngineStateRole } from './backend.js';
import type { Store } from './store.js';
import type { BatchQueue } from '../queue/queue.js';
import type { OwnerRoles } from './roles/owner-roles.js';

export function rolesOf(store: Store, queue: BatchQueue, engineState: EngineStateRole, owners: OwnerRoles, closeMore: () => Promise<void>): Backend {
  let closing: Promise<void> | null = null;
  return {
    kind: store.kind,
    accounts: {
      createAccount: (i) => store.createAccount(i),
      findAccountByName: (n) => store.findAccountByName(n),
      setAccountRateLimit: (a, p, b) => store.setAccountRateLimit(a, p, b),
      createApiKey: (i) => store.createApiKey(i),
      listApiKeys: (a) => store.listApiKeys(a),
      revokeApiKeys: (p, n) => store.revokeApiKeys(p, n),
      findActiveKey: (h) => store.findActiveKey(h),
    },
    ledger: { grantCredits: (a, c, n) => store.grantCredits(a, c, n), getBalance: (a) => store.getBalance(a) },
    verifications: {
      start: (i) => store.startVerification(i),
      complete: (i) => store.completeVerification(i),
      fail: (i) => store.failVerification(i),
      get: (a, id) => store.getVerification(a, id),
      failStale: (o, n) => store.failStaleVerifications(o, n),
      renewLeases: (ids, u) => store.renewVerificationLeases(ids, u),
      claimAbandoned: (i) => store.claimAbandonedVerifications(i),
    },
    batches: {
      create: (i) => store.createBatchRequest(i),
      get: (a, id) => store.getRequest(a, id),
      recordItemResult: (i) => store.recordItemResult(i),
      resultsSlice: (i) => store.getResultsSlice(i),
    },
    lists: {
      createList: (i) => store.createList(i),
      appendListEntries: (l, e) => store.appendListEntries(l, e),
      finishListImport: (l, s) => store.finishListImport(l, s),
      getList: (a, l) => store.getList(a, l),
      readListEntries: (l) => store.readListEntries(l),
    },
    rateLimits: { consumeToken: (i) => store.consumeRateToken(i) },
    work: {
      claim: (i) => store.claimItems(i),
      renewLeases: (o, ids, u) => store.renewLeases(o, ids, u),
      release: (o, ids) => store.releaseClaims(o, ids),
      depth: () => store.queueDepth(),
      publish: (id) => queue.publish(id),
      waitForWork: (s, ms) => queue.waitForWork(s, ms),
      scheduleRecheck: async (a, at) => queue.scheduleRecheck?.(a, at),
    },
    engineState,
    retention: { purgeExpired: (n, d) => store.purgeExpired(n, d) },
    ...owners,
    migrate: () => store.migrate(),
    ping: () => store.ping(),
    close() {
      closing ??= (async () => {
        await queue.close();
        await closeMore();
        await store.close();
      })();
      return closing;
    },
  };
}
