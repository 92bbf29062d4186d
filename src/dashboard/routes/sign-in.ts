/**
 * Signing in and out, and the one-time set-password link. The session cookie is HttpOnly,
 * SameSite=Lax (the link from an email still arrives signed in; every state change is a POST
 * with a form token) and Secure when the request came over TLS — behind a proxy, as its
 * X-Forwarded-Proto says when PRESEND_TRUST_PROXY trusts it.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { SecretRouteConfig } from '../../api/logged-url.js';
import { field, pageContext, SESSION_COOKIE, sendPage } from '../context.js';
import type { DashboardDeps } from '../context.js';
import { linkUnusablePage, setPasswordPage, signInPage } from '../pages/sign-in.js';

const SESSION_COOKIE_OPTIONS = { path: '/dashboard', httpOnly: true, sameSite: 'lax' as const, secure: 'auto' as const };

/** Only a path of the dashboard: `next` must never send the owner to another site. */
export function safeNext(raw: string): string {
  return /^\/dashboard(\/[A-Za-z0-9\-._~/?=&%]*)?$/.test(raw) && !raw.startsWith('/dashboard//') ? raw : '/dashboard';
}

function endSessionCookie(reply: FastifyReply): void {
  void reply.clearCookie(SESSION_COOKIE, SESSION_COOKIE_OPTIONS);
}

export function signInRoutes(app: FastifyInstance, deps: DashboardDeps): void {
  app.get('/sign-in', async (request, reply) => {
    if (request.owner) return reply.redirect('/dashboard', 303);
    const query = request.query as Record<string, unknown>;
    const next = safeNext(String(query.next ?? '/dashboard'));
    const ctx = await pageContext(deps, request, reply);
    if (query.set === '1') ctx.flash = { kind: 'notice', text: 'Your password is set. Sign in with it.' };
    return sendPage(reply, ctx, 'Sign in', signInPage(ctx, { email: '', next, error: null }));
  });

  app.post('/sign-in', async (request, reply) => {
    const email = field(request.body, 'email').trim();
    const next = safeNext(field(request.body, 'next'));
    const outcome = await deps.auth.signIn(email, field(request.body, 'password'), request.ip);
    if (outcome.kind === 'signed_in') {
      void reply.setCookie(SESSION_COOKIE, outcome.token, { ...SESSION_COOKIE_OPTIONS, expires: outcome.expiresAt });
      return reply.redirect(next, 303);
    }
    const error =
      outcome.kind !== 'throttled'
        ? 'The email or the password is not right.'
        : outcome.reason === 'busy'
          ? `Too many sign-ins are being checked right now. Try again in ${outcome.retryAfterSeconds} seconds.`
          : `Too many failed attempts. Try again in ${Math.ceil(outcome.retryAfterSeconds / 60)} minutes.`;
    if (outcome.kind === 'throttled') void reply.header('retry-after', String(outcome.retryAfterSeconds));
    const ctx = await pageContext(deps, request, reply);
    return sendPage(reply, ctx, 'Sign in', signInPage(ctx, { email, next, error }), outcome.kind === 'throttled' ? 429 : 401);
  });

  app.post('/sign-out', async (request, reply) => {
    if (request.owner) await deps.auth.signOut(request.owner);
    endSessionCookie(reply);
    return reply.redirect('/dashboard/sign-in', 303);
  });

  app.post('/sign-out-everywhere', async (request, reply) => {
    if (request.owner) await deps.auth.signOutEverywhere(request.owner);
    endSessionCookie(reply);
    return reply.redirect('/dashboard/sign-in', 303);
  });

  const linkToken = (request: FastifyRequest) => String((request.params as { token?: string }).token ?? '');
  // Whoever holds the link sets the password: its token never reaches a log (src/api/logged-url.ts).
  const secretLink = { config: { secretParams: ['token'] } satisfies SecretRouteConfig };

  app.get('/set-password/:token', secretLink, async (request, reply) => {
    const ctx = await pageContext(deps, request, reply);
    // The link's token must not leak to other sites through the Referer.
    void reply.header('referrer-policy', 'no-referrer');
    const user = await deps.auth.linkOwner(linkToken(request));
    if (!user) return sendPage(reply, ctx, 'Set your password', linkUnusablePage(), 404);
    return sendPage(reply, ctx, 'Set your password', setPasswordPage(ctx, { token: linkToken(request), email: user.email, error: null }));
  });

  app.post('/set-password/:token', secretLink, async (request, reply) => {
    const token = linkToken(request);
    const password = field(request.body, 'password');
    const user = await deps.auth.linkOwner(token);
    const ctx = await pageContext(deps, request, reply);
    void reply.header('referrer-policy', 'no-referrer');
    if (!user) return sendPage(reply, ctx, 'Set your password', linkUnusablePage(), 404);
    if (password !== field(request.body, 'confirm')) {
      return sendPage(reply, ctx, 'Set your password', setPasswordPage(ctx, { token, email: user.email, error: 'The two passwords differ.' }), 400);
    }
    const outcome = await deps.auth.setPassword(token, password);
    if (outcome.kind === 'weak') return sendPage(reply, ctx, 'Set your password', setPasswordPage(ctx, { token, email: user.email, error: outcome.message }), 400);
    if (outcome.kind === 'invalid_link') return sendPage(reply, ctx, 'Set your password', linkUnusablePage(), 404);
    if (outcome.kind === 'busy') {
      void reply.header('retry-after', String(outcome.retryAfterSeconds));
      const error = `Too many passwords are being checked right now. Try again in ${outcome.retryAfterSeconds} seconds.`;
      return sendPage(reply, ctx, 'Set your password', setPasswordPage(ctx, { token, email: user.email, error }), 429);
    }
    // Setting a password ended every session of the owner, this browser's too: sign in anew.
    endSessionCookie(reply);
    return reply.redirect('/dashboard/sign-in?set=1', 303);
  });
}
