/** The Policy page: the account's decision policy, changed by a form whose every change is a new version (docs/policy.md). */
import type { FastifyInstance } from 'fastify';
import { field, ownerOf, pageContext, sendPage } from '../context.js';
import type { DashboardDeps } from '../context.js';
import { setFlash } from '../flash.js';
import { policyPage } from '../pages/policy.js';
import { changePolicy, policyOverview } from '../../service/policy/policies.js';
import { PUBLIC_VERDICTS } from '../../core/types.js';

export function policyRoutes(app: FastifyInstance, deps: DashboardDeps): void {
  const { policies } = deps.backend;

  app.get('/policy', async (request, reply) => {
    const owner = ownerOf(request);
    const ctx = await pageContext(deps, request, reply);
    return sendPage(reply, ctx, 'Policy', policyPage(ctx, await policyOverview(policies, owner.user.accountId)));
  });

  app.post('/policy', async (request, reply) => {
    const owner = ownerOf(request);
    const decisions: Record<string, string> = {};
    for (const verdict of PUBLIC_VERDICTS) {
      const chosen = field(request.body, `decision.${verdict}`);
      if (chosen !== '') decisions[verdict] = chosen;
    }
    const threshold = field(request.body, 'minConfidence').trim();
    const version = Number(field(request.body, 'version'));
    // The form shows the whole table: what it sends is the whole policy, not a change to the one in force.
    const outcome = await changePolicy(policies, {
      accountId: owner.user.accountId,
      change: { reset: true, decisions, minConfidence: threshold === '' ? null : Number(threshold) },
      changedBy: owner.user.email,
      ...(Number.isSafeInteger(version) ? { expectedVersion: version } : {}),
      now: deps.now(),
    });
    const flash =
      outcome.kind === 'set'
        ? { kind: 'notice' as const, text: `Policy saved as version ${outcome.policy.version}. Checks decided from now on follow it.` }
        : outcome.kind === 'stale'
          ? { kind: 'error' as const, text: `Not saved: the policy was changed meanwhile (now version ${outcome.current}). Here it is as it stands; make your change again.` }
          : { kind: 'error' as const, text: `Not saved: ${outcome.message}` };
    await setFlash(deps.backend.ownerSessions, request, reply, flash);
    return reply.redirect('/dashboard/policy', 303);
  });
}
