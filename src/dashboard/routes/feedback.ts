/** Feedback: the sources with their counts and errors, a webhook URL made and shown once, a verification key, the window, one address's history and "Forget this address". */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { field, ownerOf, pageContext, sendPage } from '../context.js';
import type { DashboardDeps } from '../context.js';
import { setFlash } from '../flash.js';
import { addressPage, feedbackPage } from '../pages/feedback.js';
import { parseAddress } from '../../core/syntax/address.js';
import { createSourceToken, isWebhookSource, verifyKeyProblem } from '../../service/feedback/source-tokens.js';

const IMPORTS_SHOWN = 20;

/** Where the provider posts: this server as the browser reached it (behind a proxy, PRESEND_TRUST_PROXY makes that the public address). */
const baseOf = (request: FastifyRequest): string => `${request.protocol}://${request.host}`;

export function feedbackRoutes(app: FastifyInstance, deps: DashboardDeps): void {
  const { feedback } = deps.backend;
  const back = (reply: FastifyReply) => reply.redirect('/dashboard/feedback', 303);

  app.get('/feedback', async (request, reply) => {
    const accountId = ownerOf(request).user.accountId;
    const [sources, imports, windowDays] = await Promise.all([feedback.sources(accountId), feedback.imports(accountId, IMPORTS_SHOWN), feedback.windowDays(accountId)]);
    const ctx = await pageContext(deps, request, reply);
    return sendPage(reply, ctx, 'Feedback', feedbackPage(ctx, { sources, imports, windowDays }));
  });

  app.post('/feedback/tokens', async (request, reply) => {
    const source = field(request.body, 'source');
    if (!isWebhookSource(source)) {
      await setFlash(deps.backend.ownerSessions, request, reply, { kind: 'error', text: 'Choose a provider.' });
      return back(reply);
    }
    const token = await createSourceToken(feedback, ownerOf(request).user.accountId, source, deps.now());
    await setFlash(deps.backend.ownerSessions, request, reply, { kind: 'notice', text: 'Webhook URL created.', newFeedbackToken: { source, url: `${baseOf(request)}/feedback/${source}/${token}` } });
    return back(reply);
  });

  app.post('/feedback/keys', async (request, reply) => {
    const source = field(request.body, 'source');
    const key = field(request.body, 'key').trim();
    const problem = isWebhookSource(source) ? verifyKeyProblem(source, key) : 'choose a provider';
    if (problem || !isWebhookSource(source)) {
      await setFlash(deps.backend.ownerSessions, request, reply, { kind: 'error', text: `The key was not saved: ${problem ?? ''}.` });
      return back(reply);
    }
    await feedback.setVerifyKey({ accountId: ownerOf(request).user.accountId, source, verifyKey: key, now: deps.now() });
    await setFlash(deps.backend.ownerSessions, request, reply, { kind: 'notice', text: 'Key saved: deliveries are verified with it from now on.' });
    return back(reply);
  });

  app.post('/feedback/window', async (request, reply) => {
    const text = field(request.body, 'days').trim();
    const days = /^\d{1,4}$/.test(text) ? Number(text) : NaN;
    if (!(days >= 1 && days <= 3650)) {
      await setFlash(deps.backend.ownerSessions, request, reply, { kind: 'error', text: 'The window is a whole number of days from 1 to 3650.' });
      return back(reply);
    }
    await feedback.setWindow(ownerOf(request).user.accountId, days);
    await setFlash(deps.backend.ownerSessions, request, reply, { kind: 'notice', text: `Hard bounces and deliveries count for ${days} day(s).` });
    return back(reply);
  });

  app.get('/feedback/address', async (request, reply) => {
    const given = typeof (request.query as Record<string, unknown>).email === 'string' ? ((request.query as Record<string, string>).email ?? '') : '';
    const parsed = parseAddress(given.trim());
    const ctx = await pageContext(deps, request, reply);
    if (!parsed.ok) return sendPage(reply, ctx, 'Address history', `<p class="error-message" role="alert">That is not an email address.</p><p><a href="/dashboard/feedback">Back to feedback</a></p>`, 400);
    const email = parsed.address.normalized;
    const record = await feedback.address(ownerOf(request).user.accountId, email);
    return sendPage(reply, ctx, `History of ${email}`, addressPage(ctx, { email, record }));
  });

  app.post('/feedback/forget', async (request, reply) => {
    const parsed = parseAddress(field(request.body, 'email').trim());
    if (!parsed.ok) return back(reply);
    const removed = await feedback.forget(ownerOf(request).user.accountId, parsed.address.normalized);
    await setFlash(deps.backend.ownerSessions, request, reply, { kind: 'notice', text: removed ? `${parsed.address.normalized} is forgotten.` : `Nothing was kept about ${parsed.address.normalized}.` });
    return back(reply);
  });
}
