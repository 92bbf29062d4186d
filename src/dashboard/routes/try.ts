/** Try an address: one check through VerifyService, as POST /v1/verify would run it, on a key of the owner's account. */
import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { field, isId, ownerOf, pageContext, sendPage } from '../context.js';
import type { DashboardDeps } from '../context.js';
import { tryPage } from '../pages/try.js';
import type { TryOutcome } from '../pages/try.js';
import { shownEvidence } from '../../service/evidence/evidence-keeper.js';

/** How long the page waits for a verdict before saying the check still runs. */
const WAIT_MS = 15_000;

export function tryRoutes(app: FastifyInstance, deps: DashboardDeps): void {
  const activeKeys = async (accountId: string) => (await deps.backend.keyManagement.listKeys(accountId)).filter((k) => k.revokedAt === null);

  app.get('/try', async (request, reply) => {
    const owner = ownerOf(request);
    const keys = await activeKeys(owner.user.accountId);
    const ctx = await pageContext(deps, request, reply);
    return sendPage(reply, ctx, 'Try an address', tryPage(ctx, { keys, email: '', keyId: null, idempotencyToken: randomUUID(), outcome: null }));
  });

  app.post('/try', async (request, reply) => {
    const owner = ownerOf(request);
    const email = field(request.body, 'email');
    const keyId = field(request.body, 'key');
    const token = field(request.body, 'idempotency');
    const keys = await activeKeys(owner.user.accountId);
    const key = isId(keyId) ? await deps.backend.keyManagement.usableKey(owner.user.accountId, keyId) : null;
    let outcome: TryOutcome;
    if (!key) {
      outcome = { kind: 'refused', email, message: 'Choose one of your active keys.' };
    } else {
      // The form's token keeps a resubmitted form from checking (and billing) twice.
      const verified = await deps.verify.verify(key, { email, timeoutMs: WAIT_MS }, `dashboard-try:${isId(token) ? token : randomUUID()}`);
      if (verified.kind === 'refused') {
        outcome = { kind: 'refused', email, message: verified.message ?? `The check was refused (${verified.code}).` };
      } else if (verified.kind === 'pending' || !verified.record.result) {
        outcome = { kind: 'pending', email, checkId: verified.record.id };
      } else {
        // Kept beside the result (docs/evidence.md); written a moment after the answer, so waited for here.
        await deps.verify.evidenceWritten();
        const kept = await deps.backend.evidence.ofCheck(owner.user.accountId, verified.record.id, verified.record.email);
        const evidence = shownEvidence(kept, verified.record.email, verified.record.result);
        outcome = { kind: 'completed', email: verified.record.email, envelope: verified.record.result.envelope, evidence };
      }
    }
    const ctx = await pageContext(deps, request, reply);
    const status = outcome.kind === 'refused' ? 400 : 200;
    return sendPage(reply, ctx, 'Try an address', tryPage(ctx, { keys, email, keyId: key?.keyId ?? null, idempotencyToken: randomUUID(), outcome }), status);
  });
}
