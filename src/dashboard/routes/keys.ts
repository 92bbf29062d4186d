/** Keys: create (shown once, through the sealed flash), list, revoke by id with a confirmation page. */
import type { FastifyInstance } from 'fastify';
import { field, isId, notFound, ownerOf, pageContext, sendPage } from '../context.js';
import type { DashboardDeps } from '../context.js';
import { setFlash } from '../flash.js';
import { keysPage, revokeKeyPage } from '../pages/keys.js';
import { cleanLabel, createOwnerKey, revokeOwnerKey } from '../../service/keys/managed-keys.js';

const AUDIT_SHOWN = 50;

export function keyRoutes(app: FastifyInstance, deps: DashboardDeps): void {
  const { keyManagement } = deps.backend;

  app.get('/keys', async (request, reply) => {
    const owner = ownerOf(request);
    const ctx = await pageContext(deps, request, reply);
    const [keys, events] = await Promise.all([keyManagement.listKeys(owner.user.accountId), keyManagement.keyEvents(owner.user.accountId, AUDIT_SHOWN)]);
    return sendPage(reply, ctx, 'API keys', keysPage(ctx, { keys, events }));
  });

  app.post('/keys', async (request, reply) => {
    const owner = ownerOf(request);
    const mode = field(request.body, 'mode') === 'test' ? 'test' : 'live';
    const made = await createOwnerKey(keyManagement, {
      accountId: owner.user.accountId,
      mode,
      label: cleanLabel(field(request.body, 'label')),
      actor: { name: owner.user.email },
      now: deps.now(),
    });
    await setFlash(deps.backend.ownerSessions, request, reply, {
      kind: 'notice',
      text: 'Key created.',
      newKey: { key: made.key, displayPrefix: made.record.displayPrefix, label: made.record.label, mode },
    });
    // Post/redirect/get: a reload shows the list, never the key again.
    return reply.redirect('/dashboard/keys', 303);
  });

  app.get('/keys/:id/revoke', async (request, reply) => {
    const owner = ownerOf(request);
    const { id } = request.params as { id: string };
    const key = isId(id) ? await keyManagement.getKey(owner.user.accountId, id) : null;
    if (!key) throw notFound();
    if (key.revokedAt) return reply.redirect('/dashboard/keys', 303);
    const ctx = await pageContext(deps, request, reply);
    return sendPage(reply, ctx, 'Revoke a key', revokeKeyPage(ctx, key));
  });

  app.post('/keys/:id/revoke', async (request, reply) => {
    const owner = ownerOf(request);
    const { id } = request.params as { id: string };
    const key = isId(id) ? await revokeOwnerKey(keyManagement, { accountId: owner.user.accountId, keyId: id, actor: { name: owner.user.email }, now: deps.now() }) : null;
    if (!key) throw notFound();
    await setFlash(deps.backend.ownerSessions, request, reply, { kind: 'notice', text: `Key ${key.displayPrefix}… is revoked.` });
    return reply.redirect('/dashboard/keys', 303);
  });
}
