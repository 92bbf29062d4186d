/**
 * CSRF protection of every state change (OWASP CSRF Prevention Cheat Sheet):
 * - a synchroniser token: each form carries a token made (by @fastify/csrf) from a secret of
 *   the signed-in session, kept in the store, so every API node checks it alike. Before
 *   signing in (the sign-in and set-password forms), the secret is a random value in its own
 *   HttpOnly, SameSite=Strict cookie (double submit);
 * - and, in depth, the browser's own word: a request that says it is cross-site
 *   (Sec-Fetch-Site) or comes from another origin (Origin) is refused before any token check.
 * Tokens come in the form field `_csrf`, the `x-csrf-token` header (the upload script) or,
 * for an upload form, the `_csrf` query parameter.
 *
 * Why not @fastify/csrf-protection: with @fastify/cookie it binds a token to a session only
 * through an HMAC key that every node would have to share (one more secret to configure); the
 * secret in the session row gives the same binding with nothing to configure.
 */
import Tokens from '@fastify/csrf';
import type { FastifyReply, FastifyRequest } from 'fastify';

const tokens = Tokens();
export const PRE_SESSION_COOKIE = 'presend_csrf';
const SECRET_SHAPE = /^[A-Za-z0-9_-]{16,128}$/;

function secretOf(request: FastifyRequest): string | null {
  if (request.owner) return request.owner.csrfSecret;
  const cookie = request.cookies[PRE_SESSION_COOKIE];
  return cookie && SECRET_SHAPE.test(cookie) ? cookie : null;
}

/** The token for the forms of this page (sets the pre-session cookie when needed). */
export function formToken(request: FastifyRequest, reply: FastifyReply): string {
  let secret = secretOf(request);
  if (!secret) {
    secret = tokens.secretSync();
    request.cookies[PRE_SESSION_COOKIE] = secret;
    void reply.setCookie(PRE_SESSION_COOKIE, secret, { path: '/dashboard', httpOnly: true, sameSite: 'strict', secure: 'auto' });
  }
  return tokens.create(secret);
}

function presentedToken(request: FastifyRequest): string | null {
  const body = request.body as Record<string, unknown> | undefined;
  const fromBody = body && typeof body === 'object' ? body._csrf : undefined;
  const fromHeader = request.headers['x-csrf-token'];
  // An upload's token is in its URL: a multipart body is read only after this check.
  const fromQuery = (request.query as Record<string, unknown> | undefined)?._csrf;
  const token = typeof fromBody === 'string' ? fromBody : typeof fromHeader === 'string' ? fromHeader : typeof fromQuery === 'string' ? fromQuery : null;
  return token && token.length <= 200 ? token : null;
}

function sameOrigin(request: FastifyRequest): boolean {
  // Fetch metadata, where the browser sends it, is the clearest word (W3C Fetch Metadata).
  const site = request.headers['sec-fetch-site'];
  if (site !== undefined) return site === 'same-origin';
  // Else Origin; "null" (sent under Referrer-Policy: no-referrer) proves nothing either way.
  const origin = request.headers.origin;
  if (origin === undefined || origin === 'null') return true;
  try {
    return new URL(origin).host === request.host;
  } catch {
    return false;
  }
}

/** True when a state-changing request carries a valid token of its session and comes from this origin. */
export function validFormToken(request: FastifyRequest): boolean {
  if (!sameOrigin(request)) return false;
  const secret = secretOf(request);
  const token = presentedToken(request);
  return secret !== null && token !== null && tokens.verify(secret, token);
}
