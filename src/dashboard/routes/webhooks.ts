/** Webhooks: add (secret shown once, through the sealed flash), list, one endpoint with its delivery log, test, rotate, enable, remove, send again. */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { field, isId, notFound, ownerOf, pageContext, sendPage } from '../context.js';
import type { DashboardDeps } from '../context.js';
import { setFlash } from '../flash.js';
import { endpointPage, removeEndpointPage, webhooksPage } from '../pages/webhooks.js';
import { addEndpoint, rotateEndpointSecret } from '../../service/webhooks/endpoints.js';

const DELIVERIES_SHOWN = 100;

/** A form field sent once or several times (checkboxes), as a list. */
function fields(body: unknown, name: string): string[] {
  const value = body && typeof body === 'object' ? (body as Record<string, unknown>)[name] : undefined;
  if (typeof value === 'string') return [value];
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

export function webhookRoutes(app: FastifyInstance, deps: DashboardDeps): void {
  const { webhooks } = deps.backend;

  const ownEndpoint = async (request: FastifyRequest) => {
    const { id } = request.params as { id: string };
    const endpoint = isId(id) ? await webhooks.getEndpoint(ownerOf(request).user.accountId, id) : null;
    if (!endpoint) throw notFound();
    return endpoint;
  };

  app.get('/webhooks', async (request, reply) => {
    const owner = ownerOf(request);
    const ctx = await pageContext(deps, request, reply);
    return sendPage(reply, ctx, 'Webhooks', webhooksPage(ctx, { endpoints: await webhooks.listEndpoints(owner.user.accountId) }));
  });

  app.post('/webhooks', async (request, reply) => {
    const owner = ownerOf(request);
    const events = fields(request.body, 'events');
    const added = await addEndpoint(webhooks, {
      accountId: owner.user.accountId,
      url: field(request.body, 'url'),
      // No box ticked is a choice of nothing, not of everything.
      events: events.length === 0 ? ['none'] : events,
      description: field(request.body, 'description') || null,
      allowPrivate: deps.allowPrivateWebhooks,
      now: deps.now(),
    });
    if (added.kind === 'refused') {
      const text = events.length === 0 ? 'Choose at least one event to send.' : `The endpoint was not added: ${added.message}.`;
      await setFlash(deps.backend.ownerSessions, request, reply, { kind: 'error', text });
      return reply.redirect('/dashboard/webhooks', 303);
    }
    const { endpoint, secret } = added.value;
    await setFlash(deps.backend.ownerSessions, request, reply, { kind: 'notice', text: 'Endpoint added.', newSecret: { secret, url: endpoint.url, rotated: false } });
    return reply.redirect(`/dashboard/webhooks/${endpoint.id}`, 303);
  });

  app.get('/webhooks/:id', async (request, reply) => {
    const endpoint = await ownEndpoint(request);
    const deliveries = await webhooks.deliveries(endpoint.accountId, endpoint.id, DELIVERIES_SHOWN);
    const ctx = await pageContext(deps, request, reply);
    return sendPage(reply, ctx, 'Webhook endpoint', endpointPage(ctx, { endpoint, deliveries }));
  });

  app.post('/webhooks/:id/test', async (request, reply) => {
    const endpoint = await ownEndpoint(request);
    await webhooks.sendTest({ accountId: endpoint.accountId, endpointId: endpoint.id, now: deps.now() });
    await setFlash(deps.backend.ownerSessions, request, reply, { kind: 'notice', text: 'A test event is on its way; reload to see how it went.' });
    return reply.redirect(`/dashboard/webhooks/${endpoint.id}`, 303);
  });

  app.post('/webhooks/:id/rotate', async (request, reply) => {
    const endpoint = await ownEndpoint(request);
    const rotated = await rotateEndpointSecret(webhooks, { accountId: endpoint.accountId, endpointId: endpoint.id, now: deps.now() });
    if (rotated.kind === 'refused') throw notFound();
    await setFlash(deps.backend.ownerSessions, request, reply, { kind: 'notice', text: 'Secret rotated.', newSecret: { secret: rotated.value.secret, url: endpoint.url, rotated: true } });
    return reply.redirect(`/dashboard/webhooks/${endpoint.id}`, 303);
  });

  app.post('/webhooks/:id/enable', async (request, reply) => {
    const endpoint = await ownEndpoint(request);
    await webhooks.enableEndpoint(endpoint.accountId, endpoint.id);
    await setFlash(deps.backend.ownerSessions, request, reply, { kind: 'notice', text: 'The endpoint takes events again.' });
    return reply.redirect(`/dashboard/webhooks/${endpoint.id}`, 303);
  });

  app.get('/webhooks/:id/remove', async (request, reply) => {
    const endpoint = await ownEndpoint(request);
    const ctx = await pageContext(deps, request, reply);
    return sendPage(reply, ctx, 'Remove a webhook endpoint', removeEndpointPage(ctx, endpoint));
  });

  app.post('/webhooks/:id/remove', async (request, reply) => {
    const endpoint = await ownEndpoint(request);
    await webhooks.deleteEndpoint(endpoint.accountId, endpoint.id);
    await setFlash(deps.backend.ownerSessions, request, reply, { kind: 'notice', text: `The endpoint ${endpoint.url} is removed.` });
    return reply.redirect('/dashboard/webhooks', 303);
  });

  app.post('/webhooks/:id/deliveries/:deliveryId/resend', async (request, reply) => {
    const endpoint = await ownEndpoint(request);
    const { deliveryId } = request.params as { deliveryId: string };
    const again = isId(deliveryId) ? await webhooks.resend({ accountId: endpoint.accountId, deliveryId, now: deps.now() }) : null;
    if (!again || again.endpointId !== endpoint.id) throw notFound();
    await setFlash(deps.backend.ownerSessions, request, reply, { kind: 'notice', text: `${again.eventType} ${again.eventId} is sent again.` });
    return reply.redirect(`/dashboard/webhooks/${endpoint.id}`, 303);
  });
}
