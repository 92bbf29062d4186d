/** The overview page. */
import type { FastifyInstance } from 'fastify';
import { ownerOf, pageContext, sendPage } from '../context.js';
import type { DashboardDeps } from '../context.js';
import { overviewPage } from '../pages/overview.js';

const DAY_MS = 86_400_000;
const DAYS = 30;
const RECENT = 5;

/** The bounds of the last `days` UTC days, today included: days + 1 instants. */
export function dayBounds(now: Date, days: number): Date[] {
  const tomorrow = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()) + DAY_MS;
  return Array.from({ length: days + 1 }, (_, i) => new Date(tomorrow - (days - i) * DAY_MS));
}

export function overviewRoutes(app: FastifyInstance, deps: DashboardDeps): void {
  app.get('/', async (request, reply) => {
    const owner = ownerOf(request);
    const accountId = owner.user.accountId;
    const bounds = dayBounds(deps.now(), DAYS);
    const [balance, sums, batches] = await Promise.all([
      deps.backend.ledger.getBalance(accountId),
      deps.backend.accountViews.debitsBetween(accountId, bounds),
      deps.backend.accountViews.recentRequests(accountId, { limit: RECENT }),
    ]);
    const usage = sums.map((value, i) => ({ label: (bounds[i] as Date).toISOString().slice(5, 10), value }));
    const ctx = await pageContext(deps, request, reply);
    return sendPage(reply, ctx, 'Overview', overviewPage({ balance, usage, batches }));
  });
}
