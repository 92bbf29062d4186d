/**
 * The dashboard (docs/design.md §7): server-rendered pages at /dashboard, mounted into the service's
 * Fastify app by `presend serve`. Fastify's own plugins do the plumbing — @fastify/cookie,
 * @fastify/formbody, @fastify/multipart (uploads streamed, never buffered whole),
 * @fastify/static (one stylesheet, one script) and @fastify/helmet (a strict
 * Content-Security-Policy: scripts and styles from this origin only, no inline script or style
 * at all). Two groups of routes: the public ones (sign in, set a password) and the owner's,
 * behind the sign-in guard. Every POST needs a form token (src/dashboard/csrf.ts).
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import cookie from '@fastify/cookie';
import formbody from '@fastify/formbody';
import helmet from '@fastify/helmet';
import multipart from '@fastify/multipart';
import fastifyStatic from '@fastify/static';
import { html } from 'ghtml';
import { ASSETS_DIR } from './assets.js';
import { PageError, pageContext, SESSION_COOKIE, sendPage } from './context.js';
import type { DashboardDeps } from './context.js';
import { validFormToken } from './csrf.js';
import { signInRoutes } from './routes/sign-in.js';
import { overviewRoutes } from './routes/overview.js';
import { keyRoutes } from './routes/keys.js';
import { batchRoutes } from './routes/batches.js';
import { usageRoutes } from './routes/usage.js';
import { tryRoutes } from './routes/try.js';
import { listRoutes } from './routes/lists.js';
import { webhookRoutes } from './routes/webhooks.js';
import { policyRoutes } from './routes/policy.js';
import { feedbackRoutes } from './routes/feedback.js';
import { StoreFailure } from '../store/store-failure.js';

export type DashboardOptions = DashboardDeps;

/** Form bodies are small: a label, an address, a password. */
const FORM_BODY_LIMIT = 64 * 1024;

const CSP = {
  defaultSrc: ["'none'"],
  scriptSrc: ["'self'"],
  styleSrc: ["'self'"],
  imgSrc: ["'self'"],
  connectSrc: ["'self'"],
  formAction: ["'self'"],
  frameAncestors: ["'none'"],
  baseUri: ["'none'"],
  // Served over plain HTTP on a developer's machine; TLS is the proxy's business.
  upgradeInsecureRequests: null,
};

async function loadOwner(deps: DashboardDeps, request: FastifyRequest): Promise<void> {
  const token = request.cookies[SESSION_COOKIE];
  request.owner = token && token.length <= 100 ? await deps.auth.session(token) : null;
}

function checkFormToken(request: FastifyRequest): void {
  if (request.method === 'GET' || request.method === 'HEAD') return;
  if (!validFormToken(request)) throw new PageError(403, 'This form has expired or did not come from this site. Go back, reload the page and try again.');
}

function errorStatus(err: FastifyError): { status: number; message: string } {
  if (err instanceof PageError) return { status: err.status, message: err.message };
  if (err.code === 'FST_REQ_FILE_TOO_LARGE') return { status: 413, message: 'The file is larger than this server accepts.' };
  if (typeof err.statusCode === 'number' && err.statusCode >= 400 && err.statusCode < 500) return { status: err.statusCode, message: 'The request was not understood.' };
  if (err instanceof StoreFailure) return { status: 503, message: 'The database is unavailable right now; try again in a moment.' };
  return { status: 500, message: 'Something went wrong on our side. Try again; if it keeps happening, tell your administrator.' };
}

export async function dashboardPlugin(app: FastifyInstance, options: DashboardOptions): Promise<void> {
  const deps: DashboardDeps = options;
  // Pages, not part of the interface: kept out of /openapi.json.
  app.addHook('onRoute', (route) => {
    route.schema = { ...route.schema, hide: true };
  });
  await app.register(cookie);
  await app.register(helmet, { contentSecurityPolicy: { useDefaults: false, directives: CSP }, strictTransportSecurity: false, crossOriginEmbedderPolicy: false });
  await app.register(fastifyStatic, { root: ASSETS_DIR, prefix: '/assets/', decorateReply: false, index: false, maxAge: '30d', immutable: true });
  app.decorateRequest('owner', null);

  app.setErrorHandler(async (err: FastifyError, request, reply: FastifyReply) => {
    const { status, message } = errorStatus(err);
    if (status >= 500) request.log.error({ err }, 'dashboard request failed');
    const ctx = await pageContext(deps, request, reply).catch(() => ({ owner: request.owner, csrf: '', path: '', flash: null }));
    const title = status === 404 ? 'Not found' : status === 403 ? 'Refused' : status >= 500 ? 'Error' : 'Cannot do that';
    return sendPage(reply, ctx, title, html`<p class="error-message" role="alert">${message}</p><p><a href="/dashboard">Back to the overview</a></p>`, status);
  });
  app.setNotFoundHandler(async (request, reply) => {
    const ctx = await pageContext(deps, request, reply);
    return sendPage(reply, ctx, 'Not found', html`<p class="error-message" role="alert">There is nothing here.</p><p><a href="/dashboard">Back to the overview</a></p>`, 404);
  });

  // Signing in and setting a password: no owner needed.
  await app.register(async (pub) => {
    await pub.register(formbody, { bodyLimit: FORM_BODY_LIMIT });
    pub.addHook('onRequest', (request) => loadOwner(deps, request));
    pub.addHook('preHandler', async (request) => checkFormToken(request));
    signInRoutes(pub, deps);
  });

  // Everything else: a signed-in owner, who sees only the own account.
  await app.register(async (owned) => {
    await owned.register(formbody, { bodyLimit: FORM_BODY_LIMIT });
    await owned.register(multipart, { limits: { fileSize: options.maxUploadBytes, files: 1, fields: 20, parts: 25 } });
    owned.addHook('onRequest', async (request, reply) => {
      await loadOwner(deps, request);
      if (request.owner) return;
      const next = encodeURIComponent(request.url);
      return reply.redirect(`/dashboard/sign-in?next=${next}`, 303);
    });
    owned.addHook('preHandler', async (request) => checkFormToken(request));
    overviewRoutes(owned, deps);
    keyRoutes(owned, deps);
    listRoutes(owned, deps);
    batchRoutes(owned, deps);
    usageRoutes(owned, deps);
    tryRoutes(owned, deps);
    webhookRoutes(owned, deps);
    policyRoutes(owned, deps);
    feedbackRoutes(owned, deps);
  });
}
