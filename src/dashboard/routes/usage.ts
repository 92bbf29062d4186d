/** Usage: the credits ledger page, and all of it as CSV (streamed page by page, never held whole). */
import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { csvRecord } from '../../files/index.js';
import { ownerOf, pageContext, sendPage } from '../context.js';
import type { DashboardDeps } from '../context.js';
import { usagePage } from '../pages/usage.js';
import type { AccountViewsRole } from '../../store/roles/account-views.js';

const PAGE = 50;
const EXPORT_PAGE = 1000;
export const LEDGER_CSV_COLUMNS = ['id', 'created_at', 'kind', 'credits', 'request_id', 'verification_id'];

async function* ledgerCsv(views: AccountViewsRole, accountId: string): AsyncGenerator<string> {
  yield csvRecord(LEDGER_CSV_COLUMNS);
  let beforeId: number | undefined;
  for (;;) {
    const entries = await views.ledger(accountId, { limit: EXPORT_PAGE, ...(beforeId !== undefined ? { beforeId } : {}) });
    if (entries.length === 0) return;
    // Through the one CSV writer like every other export, though these are system values (a debit is `-1`, a number, left as it is).
    yield entries.map((e) => csvRecord([String(e.id), e.createdAt, e.kind, String(e.credits), e.requestId ?? '', e.verificationId ?? ''])).join('');
    beforeId = entries.at(-1)?.id;
    if (entries.length < EXPORT_PAGE) return;
  }
}

export function usageRoutes(app: FastifyInstance, deps: DashboardDeps): void {
  app.get('/usage', async (request, reply) => {
    const owner = ownerOf(request);
    const raw = String((request.query as Record<string, unknown>).before ?? '');
    const beforeId = /^\d{1,15}$/.test(raw) ? Number(raw) : undefined;
    const [balance, entries] = await Promise.all([
      deps.backend.ledger.getBalance(owner.user.accountId),
      deps.backend.accountViews.ledger(owner.user.accountId, { limit: PAGE, ...(beforeId !== undefined ? { beforeId } : {}) }),
    ]);
    const last = entries.at(-1);
    const olderHref = entries.length === PAGE && last ? `/dashboard/usage?before=${last.id}` : null;
    const ctx = await pageContext(deps, request, reply);
    return sendPage(reply, ctx, 'Usage', usagePage({ balance, entries, olderHref }));
  });

  app.get('/usage.csv', async (request, reply) => {
    const owner = ownerOf(request);
    const day = deps.now().toISOString().slice(0, 10);
    return reply
      .header('cache-control', 'no-store')
      .header('content-disposition', `attachment; filename="presend-ledger-${day}.csv"`)
      .type('text/csv; charset=utf-8')
      .send(Readable.from(ledgerCsv(deps.backend.accountViews, owner.user.accountId)));
  });
}
