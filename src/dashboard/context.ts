/** What every dashboard route shares: its dependencies, the signed-in owner on the request, and page rendering. */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Backend } from '../store/backend.js';
import type { OwnerSession } from '../store/roles/owner-sessions.js';
import type { OwnerAuth } from '../service/owners/owner-sign-in.js';
import type { VerifyService } from '../service/checks/verify-service.js';
import type { BatchService } from '../service/batches/batch-service.js';
import type { ResultsService } from '../service/batches/results-service.js';
import type { ListUploads } from '../service/lists/list-uploads.js';
import type { PrivateMxAllowance } from '../core/dns/address-safety.js';
import { formToken } from './csrf.js';
import { takeFlash } from './flash.js';
import { page } from './layout.js';
import type { PageContext } from './layout.js';
import type { TableLimits } from '../files/index.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The signed-in owner of a dashboard request, or null. */
    owner: OwnerSession | null;
  }
}

export interface DashboardDeps {
  backend: Pick<
    Backend,
    'accounts' | 'ledger' | 'lists' | 'batches' | 'users' | 'ownerSessions' | 'loginThrottle' | 'keyManagement' | 'listFiles' | 'accountViews' | 'webhooks' | 'policies' | 'feedback' | 'evidence'
  >;
  auth: OwnerAuth;
  verify: VerifyService;
  batches: BatchService;
  results: ResultsService;
  uploads: ListUploads;
  now: () => Date;
  /** The largest file an upload may be (bytes). */
  maxUploadBytes: number;
  /** PRESEND_ALLOW_PRIVATE_WEBHOOKS: which endpoint addresses an owner may register. */
  allowPrivateWebhooks: PrivateMxAllowance;
  /** The bounds of reading a table (config.tableLimits): an upload's stored file is read back with the same ones. */
  tableLimits?: TableLimits;
}

export const SESSION_COOKIE = 'presend_session';

/** The owner of a route that requires one (routes run behind the sign-in guard). */
export function ownerOf(request: FastifyRequest): OwnerSession {
  if (!request.owner) throw new Error('route reached without a signed-in owner');
  return request.owner;
}

export async function pageContext(deps: DashboardDeps, request: FastifyRequest, reply: FastifyReply): Promise<PageContext> {
  const flash = await takeFlash(deps.backend.ownerSessions, request, reply);
  return { owner: request.owner, csrf: formToken(request, reply), path: request.url.split('?')[0] ?? '', flash };
}

/** Renders a full page; pages are never cached (they show balances, keys, progress). */
export function sendPage(reply: FastifyReply, ctx: PageContext, title: string, body: string, status = 200): FastifyReply {
  return reply.code(status).header('cache-control', 'no-store').type('text/html; charset=utf-8').send(page(ctx, title, body));
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isId(text: unknown): text is string {
  return typeof text === 'string' && UUID.test(text);
}

/** A form field as a string ('' when absent or not text). */
export function field(body: unknown, name: string): string {
  const value = body && typeof body === 'object' ? (body as Record<string, unknown>)[name] : undefined;
  return typeof value === 'string' ? value : '';
}

/** Raised by a route for an answer other than its page: rendered by the dashboard's error handler. */
export class PageError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'PageError';
  }
}

export const notFound = (): PageError => new PageError(404, 'There is nothing here, or it belongs to another account.');
