/**
 * Batches: the list with the start forms, the cost confirmation, starting one through the same
 * BatchService as POST /v1/requests (on a key of the owner's account, with an idempotency key
 * from the confirmation form, so a double submit starts one batch), one batch's page, and its
 * live progress as server-sent events.
 */
import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { PassThrough } from 'node:stream';
import { batchProgress } from '../batch-progress.js';
import type { FastifyInstance } from 'fastify';
import { field, isId, notFound, ownerOf, pageContext, PageError, sendPage } from '../context.js';
import type { DashboardDeps } from '../context.js';
import { batchesPage, batchPage, confirmBatchPage } from '../pages/batches.js';
import { batchAddressPage } from '../pages/batch-address.js';
import { normalizeAddress } from '../../core/syntax/address.js';
import { shownEvidence } from '../../service/evidence/evidence-keeper.js';
import { listBatchCost } from '../../service/batches/batch-cost.js';
import { resultsFile } from '../results-file.js';
import { parseRowSets } from '../../files/index.js';

const PAGE = 20;
/** Final addresses linked from a batch's page to their explanations. */
const FIRST_EXPLAINED = 20;
/** How often a progress stream reads the batch; and how long one stream lasts before the browser reconnects. */
const EVENT_EVERY_MS = 1000;
const STREAM_FOR_MS = 5 * 60_000;

export function batchRoutes(app: FastifyInstance, deps: DashboardDeps): void {
  const { keyManagement, accountViews, listFiles, lists, ledger } = deps.backend;
  const streams = new Set<ServerResponse>();
  // Shutdown must not wait for open progress streams: end them; browsers reconnect elsewhere.
  app.addHook('preClose', async () => {
    for (const stream of streams) stream.end();
  });

  const activeKeys = async (accountId: string) => (await keyManagement.listKeys(accountId)).filter((k) => k.revokedAt === null);

  app.get('/batches', async (request, reply) => {
    const owner = ownerOf(request);
    const accountId = owner.user.accountId;
    const before = String((request.query as Record<string, unknown>).before ?? '');
    const [batches, allLists, keys] = await Promise.all([
      accountViews.recentRequests(accountId, { limit: PAGE, ...(before && !Number.isNaN(Date.parse(before)) ? { before } : {}) }),
      listFiles.listLists(accountId, 200),
      activeKeys(accountId),
    ]);
    const last = batches.at(-1);
    const olderHref = batches.length === PAGE && last ? `/dashboard/batches?before=${encodeURIComponent(last.createdAt)}` : null;
    const ctx = await pageContext(deps, request, reply);
    return sendPage(reply, ctx, 'Batches', batchesPage(ctx, { batches, lists: allLists, keys, olderHref, maxUploadMb: Math.floor(deps.maxUploadBytes / (1024 * 1024)) }));
  });

  const confirmation = async (accountId: string, listId: unknown, keyId: unknown) => {
    const keys = await activeKeys(accountId);
    const key = keys.find((k) => k.id === keyId) ?? keys[0];
    if (!isId(listId) || !key) throw notFound();
    const cost = await listBatchCost(lists, accountId, listId, key.mode);
    if (!cost) throw notFound();
    if (cost.list.state !== 'ready') throw new PageError(409, `This list is ${cost.list.state}, not ready: a batch can start once its import is done.`);
    return { cost, key, keys, balance: await ledger.getBalance(accountId) };
  };

  app.get('/batches/new', async (request, reply) => {
    const owner = ownerOf(request);
    const query = request.query as Record<string, unknown>;
    const found = await confirmation(owner.user.accountId, query.list, query.key);
    const ctx = await pageContext(deps, request, reply);
    return sendPage(reply, ctx, 'Start a batch', confirmBatchPage(ctx, { ...found, idempotencyToken: randomUUID(), error: null }));
  });

  app.post('/batches', async (request, reply) => {
    const owner = ownerOf(request);
    const accountId = owner.user.accountId;
    const listId = field(request.body, 'list');
    const keyId = field(request.body, 'key');
    const token = field(request.body, 'idempotency');
    const key = isId(keyId) ? await keyManagement.usableKey(accountId, keyId) : null;
    if (!isId(listId) || !key || !isId(token)) throw notFound();
    const outcome = await deps.batches.create(key, { listId }, `dashboard:${token}`);
    if (outcome.kind !== 'refused') return reply.redirect(`/dashboard/batches/${outcome.request.id}`, 303);
    const found = await confirmation(accountId, listId, keyId);
    const ctx = await pageContext(deps, request, reply);
    const message = outcome.message ?? `The batch was refused (${outcome.code}).`;
    return sendPage(reply, ctx, 'Start a batch', confirmBatchPage(ctx, { ...found, idempotencyToken: randomUUID(), error: message }), outcome.code === 'insufficient_credits' ? 402 : 409);
  });

  app.get('/batches/:id', async (request, reply) => {
    const owner = ownerOf(request);
    const { id } = request.params as { id: string };
    const view = isId(id) ? await deps.results.status(owner.user.accountId, id) : null;
    if (!view) throw notFound();
    const [verdicts, summary, first] = await Promise.all([
      accountViews.verdictCounts(owner.user.accountId, id),
      accountViews.requestSummary(owner.user.accountId, id),
      deps.backend.batches.resultsSlice({ accountId: owner.user.accountId, requestId: id, afterSeq: 0, limit: FIRST_EXPLAINED }),
    ]);
    const listId = summary?.listId ?? null;
    const file = listId ? await listFiles.getFile(owner.user.accountId, listId) : null;
    const list = listId ? await lists.getList(owner.user.accountId, listId) : null;
    const ctx = await pageContext(deps, request, reply);
    const listRowsWritten = summary?.listRowsWritten ?? null;
    const firstAddresses = (first?.rows ?? []).map((r) => ({ email: r.email, verdict: r.envelope.verdict }));
    return sendPage(reply, ctx, `Batch ${id.slice(0, 8)}`, batchPage({ view, verdicts, listName: list?.name ?? null, joined: file !== null, listRowsWritten, firstAddresses }));
  });

  // One address of the batch and how its verdict was reached (docs/evidence.md).
  app.get('/batches/:id/address', async (request, reply) => {
    const owner = ownerOf(request);
    const { id } = request.params as { id: string };
    const asked = String((request.query as Record<string, unknown>).email ?? '').trim().slice(0, 320);
    const summary = isId(id) ? await accountViews.requestSummary(owner.user.accountId, id) : null;
    if (!summary || asked === '') throw notFound();
    const email = normalizeAddress(asked) ?? asked;
    const item = await deps.backend.evidence.ofItem(owner.user.accountId, id, email);
    const found = item ? { ...item, evidence: shownEvidence(item.evidence, email, item.result) } : null;
    const ctx = await pageContext(deps, request, reply);
    return sendPage(reply, ctx, `Batch ${id.slice(0, 8)}: ${email}`, batchAddressPage({ requestId: id, email, found }), found ? 200 : 404);
  });

  app.get('/batches/:id/results', async (request, reply) => {
    const owner = ownerOf(request);
    const { id } = request.params as { id: string };
    const summary = isId(id) ? await accountViews.requestSummary(owner.user.accountId, id) : null;
    if (!summary) throw notFound();
    if (summary.state !== 'completed') throw new PageError(409, 'The results can be downloaded once the batch is complete.');
    const rawOnly = (request.query as Record<string, unknown>).only;
    const only = typeof rawOnly === 'string' && rawOnly !== '' ? parseRowSets(rawOnly) : undefined;
    if (only === null) throw new PageError(400, 'Choose send, suppress, risky or unknown.');
    const file = await resultsFile(deps.backend, {
      accountId: owner.user.accountId,
      requestId: id,
      listId: summary.listId,
      ...(only ? { only } : {}),
      ...(deps.tableLimits ? { limits: deps.tableLimits } : {}),
    });
    const body = new PassThrough();
    // Written as it is read: the file never sits whole in memory. A failure half-way cuts the
    // download short, so the browser reports it instead of saving a file that looks complete.
    file.write(body).catch((err: unknown) => {
      request.log.error({ err }, 'writing a results file failed');
      body.destroy(err instanceof Error ? err : new Error(String(err)));
    });
    return reply
      .header('cache-control', 'no-store')
      .header('content-disposition', `attachment; filename="${file.fileName.replace(/[^\w.-]/g, '_')}"; filename*=UTF-8''${encodeURIComponent(file.fileName)}`)
      .type(file.contentType)
      .send(body);
  });

  app.get('/batches/:id/events', async (request, reply) => {
    const owner = ownerOf(request);
    const { id } = request.params as { id: string };
    const first = isId(id) ? await deps.results.status(owner.user.accountId, id) : null;
    if (!first) throw notFound();
    reply.hijack();
    const raw = reply.raw;
    raw.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', 'x-accel-buffering': 'no', connection: 'keep-alive' });
    streams.add(raw);
    let open = true;
    const stop = () => {
      open = false;
      streams.delete(raw);
    };
    request.raw.once('close', stop);
    raw.once('close', stop);
    const until = Date.now() + STREAM_FOR_MS;
    // The browser reconnects after a stream ends, by itself, a second later.
    raw.write('retry: 1000\n\n');
    let view = first;
    // Rows of a list still being read into the batch (only a list batch can be filling).
    const filling = async (): Promise<number | null> =>
      view.mode === 'list' ? ((await accountViews.requestSummary(owner.user.accountId, id).catch(() => null))?.listRowsWritten ?? null) : null;
    while (open) {
      const progress = batchProgress(view.state, view.counters, await filling(), view.waitingForRoute);
      raw.write(`event: progress\ndata: ${JSON.stringify({ state: view.state, counters: view.counters, progress })}\n\n`);
      if (view.state === 'completed' || view.state === 'failed' || Date.now() > until) break;
      await new Promise((resolve) => setTimeout(resolve, EVENT_EVERY_MS));
      if (!open) break;
      const next = await deps.results.status(owner.user.accountId, id).catch(() => null);
      if (!next) break;
      view = next;
    }
    stop();
    raw.end();
  });
}
