/**
 * Lists: upload (multipart, streamed straight into the import, never buffered whole), the
 * lists, one list with its import state and bad rows, picking the address column, and delete.
 */
import type { FastifyInstance } from 'fastify';
import { listBatchCost } from '../../service/batches/batch-cost.js';
import { field, isId, notFound, ownerOf, pageContext, PageError, sendPage } from '../context.js';
import type { DashboardDeps } from '../context.js';
import { setFlash } from '../flash.js';
import { deleteListPage, listPage, listsPage } from '../pages/lists.js';

const BAD_ROWS_SHOWN = 200;

export function listRoutes(app: FastifyInstance, deps: DashboardDeps): void {
  const { listFiles, lists } = deps.backend;
  const maxUploadMb = Math.floor(deps.maxUploadBytes / (1024 * 1024));

  app.get('/lists', async (request, reply) => {
    const owner = ownerOf(request);
    const all = await listFiles.listLists(owner.user.accountId, 200);
    const ctx = await pageContext(deps, request, reply);
    return sendPage(reply, ctx, 'Lists', listsPage(ctx, { lists: all, maxUploadMb }));
  });

  app.post('/lists', async (request, reply) => {
    const owner = ownerOf(request);
    if (!request.isMultipart()) throw new PageError(400, 'Send the list as a file upload.');
    const fields: Record<string, string> = {};
    for await (const part of request.parts()) {
      if (part.type === 'field') {
        if (typeof part.value === 'string') fields[part.fieldname] = part.value;
        continue;
      }
      if (part.fieldname !== 'file') {
        part.file.resume();
        continue;
      }
      const column = fields.column?.trim();
      const outcome = await deps.uploads.upload({
        accountId: owner.user.accountId,
        uploadedBy: owner.user.email,
        fileName: (part.filename || 'upload').slice(0, 200),
        name: fields.name?.trim() ? fields.name.trim().slice(0, 200) : null,
        stream: part.file,
        ...(column ? { column } : {}),
      });
      if (outcome.kind === 'failed' && part.file.truncated) throw new PageError(413, `The file is larger than this server accepts (${maxUploadMb} MB).`);
      const then = fields.then === 'batch' && outcome.kind === 'ready' ? `/dashboard/batches/new?list=${outcome.list.id}` : `/dashboard/lists/${outcome.list.id}`;
      return reply.redirect(then, 303);
    }
    throw new PageError(400, 'Choose a file to upload.');
  });

  const ownList = async (accountId: string, id: unknown) => {
    const list = isId(id) ? await lists.getList(accountId, id) : null;
    if (!list) throw notFound();
    return list;
  };

  app.get('/lists/:id', async (request, reply) => {
    const owner = ownerOf(request);
    const list = await ownList(owner.user.accountId, (request.params as { id: string }).id);
    const file = await listFiles.getFile(owner.user.accountId, list.id);
    const badRows = file ? await listFiles.badRows(list.id, BAD_ROWS_SHOWN) : [];
    // Counted as a batch would count them (the cost page's reading of the list).
    const cost = list.state === 'ready' ? await listBatchCost(deps.backend.lists, owner.user.accountId, list.id, 'test') : null;
    const counts = cost ? { entries: cost.entries, invalid: cost.invalid } : null;
    const ctx = await pageContext(deps, request, reply);
    return sendPage(reply, ctx, `List ${list.name ?? list.id}`, listPage(ctx, { list, file, badRows, counts }));
  });

  /** For the page's script, while an import runs. */
  app.get('/lists/:id/state', async (request, reply) => {
    const owner = ownerOf(request);
    const list = await ownList(owner.user.accountId, (request.params as { id: string }).id);
    const file = await listFiles.getFile(owner.user.accountId, list.id);
    return reply.header('cache-control', 'no-store').send({ state: list.state, entries: list.entries, columnChoice: file?.columnChoices !== null && file !== null });
  });

  app.post('/lists/:id/column', async (request, reply) => {
    const owner = ownerOf(request);
    const list = await ownList(owner.user.accountId, (request.params as { id: string }).id);
    const column = Number(field(request.body, 'column'));
    const started = Number.isInteger(column) && (await deps.uploads.chooseColumn(owner.user.accountId, list.id, column));
    if (!started) await setFlash(deps.backend.ownerSessions, request, reply, { kind: 'error', text: 'That column was not one to choose, or the choice was made already.' });
    return reply.redirect(`/dashboard/lists/${list.id}`, 303);
  });

  app.get('/lists/:id/delete', async (request, reply) => {
    const owner = ownerOf(request);
    const list = await ownList(owner.user.accountId, (request.params as { id: string }).id);
    const ctx = await pageContext(deps, request, reply);
    return sendPage(reply, ctx, 'Delete a list', deleteListPage(ctx, list));
  });

  app.post('/lists/:id/delete', async (request, reply) => {
    const owner = ownerOf(request);
    const list = await ownList(owner.user.accountId, (request.params as { id: string }).id);
    if (!(await deps.uploads.delete(owner.user.accountId, list.id))) throw notFound();
    await setFlash(deps.backend.ownerSessions, request, reply, { kind: 'notice', text: `List ${list.name ?? list.id} is deleted.` });
    return reply.redirect('/dashboard/lists', 303);
  });
}
