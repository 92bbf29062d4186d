/**
 * A batch's results as a file (docs/design.md §7): for a batch from an uploaded list, the owner's own
 * file back — read again from the stored copy, the same way it was read at import — with one
 * row per input row, in input order, original columns kept and the result columns added
 * (src/files' join, the round trip of `presend batch FILE`); `only` keeps the rows of some
 * decisions (send / suppress / risky / unknown). A batch without a file (addresses sent to the
 * API) comes back as one row per unique address, through the same writer.
 *
 * The results are gathered first, by address: a finished batch's results are read page by page
 * (by the API's own rendering, so a file from here and one from `presend batch` agree).
 */
import type { Writable } from 'node:stream';
import { renderResultItem } from '../api/render.js';
import { createTableWriter, openTable, summariseResult, writeJoinedTable } from '../files/index.js';
import type { OpenedTable, ResultSummary, RowSet, TableLayout, TableLimits } from '../files/index.js';
import type { TableRow } from '../files/table-row.js';
import type { BatchesRole } from '../store/roles/batches/batches.js';
import type { ListFilesRole } from '../store/roles/list-files.js';
import type { StoredLayout } from '../service/lists/list-uploads.js';

const PAGE = 1_000;

export interface ResultsFile {
  /** The name to offer: the uploaded file's, marked as results. */
  fileName: string;
  contentType: string;
  /** Writes the whole file into `out` and ends it. */
  write(out: Writable): Promise<void>;
}

async function summaries(batches: BatchesRole, accountId: string, requestId: string): Promise<Map<string, ResultSummary>> {
  const found = new Map<string, ResultSummary>();
  for (let after = 0; ; ) {
    const slice = await batches.resultsSlice({ accountId, requestId, afterSeq: after, limit: PAGE });
    if (!slice) break;
    // The API's item, so the summary is the one `presend batch` builds from an export.
    for (const row of slice.rows) found.set(row.email, summariseResult(renderResultItem(row) as Parameters<typeof summariseResult>[0]));
    const last = slice.rows.at(-1);
    if (!last || last.finalSeq >= slice.finalCount) break;
    after = last.finalSeq;
  }
  return found;
}

function named(fileName: string, only: ReadonlySet<RowSet> | undefined, extension: string): string {
  const base = fileName.replace(/\.[^.]+$/, '') || 'results';
  const suffix = only && only.size > 0 ? `-${[...only].sort().join('-')}` : '';
  return `${base}-presend${suffix}.${extension}`;
}

/** The addresses of a batch without a file, as a one-column table: the join then writes them like any file. */
function addressTable(emails: readonly string[]): OpenedTable {
  const layout: TableLayout = {
    format: 'csv',
    encoding: 'utf-8',
    bom: false,
    delimiter: ',',
    lineEnding: '\n',
    sheet: null,
    header: ['email'],
    headerLine: 1,
    emailColumn: 0,
    emailColumnLabel: '"email"',
  };
  async function* rows(): AsyncGenerator<TableRow> {
    for (const [i, email] of emails.entries()) yield { line: i + 2, cells: [email] };
  }
  return { layout, rows: rows(), blankBeforeHeader: 0 };
}

export async function resultsFile(
  deps: { batches: BatchesRole; listFiles: ListFilesRole },
  input: { accountId: string; requestId: string; listId: string | null; only?: ReadonlySet<RowSet>; limits?: TableLimits },
): Promise<ResultsFile> {
  const results = await summaries(deps.batches, input.accountId, input.requestId);
  const only = input.only && input.only.size > 0 ? input.only : undefined;
  const file = input.listId ? await deps.listFiles.getFile(input.accountId, input.listId) : null;
  if (file?.layoutJson && file.columnChoices === null && file.error === null) {
    const stored = JSON.parse(file.layoutJson) as StoredLayout;
    const xlsx = stored.layout.format === 'xlsx';
    return {
      fileName: named(file.fileName, only, xlsx ? 'xlsx' : (file.fileName.match(/\.(csv|tsv|txt)$/i)?.[1]?.toLowerCase() ?? 'csv')),
      contentType: xlsx ? 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet' : 'text/csv; charset=utf-8',
      async write(out) {
        // Read back within the bounds it was imported under (a raised PRESEND_FILE_MAX_ROWS, say).
        const table = await openTable({ stream: deps.listFiles.readFile(file.listId) }, { layout: stored.layout, ...(input.limits ? { limits: input.limits } : {}) });
        const { layout } = stored;
        // The input's own dialect; Excel reads UTF-8 CSV as UTF-8 only with a BOM, so one is added for files that came in another encoding.
        const style = { delimiter: layout.delimiter ?? ',', lineEnding: layout.lineEnding, bom: layout.bom || (layout.encoding !== null && layout.encoding !== 'utf-8') };
        const writer = createTableWriter(xlsx ? 'xlsx' : 'csv', out, style);
        await writeJoinedTable(table, { width: stored.width, results, ...(only ? { only } : {}), writer });
      },
    };
  }
  return {
    fileName: named(`batch-${input.requestId.slice(0, 8)}`, only, 'csv'),
    contentType: 'text/csv; charset=utf-8',
    async write(out) {
      const writer = createTableWriter('csv', out, { delimiter: ',', lineEnding: '\n', bom: false });
      await writeJoinedTable(addressTable([...results.keys()]), { width: 1, results, ...(only ? { only } : {}), writer });
    },
  };
}
