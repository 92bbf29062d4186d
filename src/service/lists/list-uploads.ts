/**
 * A list from an uploaded file (the dashboard): the upload streams through once — each chunk
 * is kept in the store (so any node can later write the results back into this very file) and
 * read by the same table reader as `presend lists import` (src/files), whose entries are
 * appended as they come. Nothing holds the whole file in memory (an XLSX workbook is spooled to
 * a temporary file by the reader, which needs random access to its zip directory).
 *
 * When more than one column looks like it holds addresses and none was named, the import waits
 * for the owner to pick one: the whole file is still kept, and the import then runs from the
 * stored copy, in the background, on the node that took the choice. The import is leased (kind
 * `listImport`), its lease kept by the process's lease keeper. Should that node die, the lease
 * lapses and a serving node's keeper takes the import over (`start`) and runs it again from the
 * stored copy, skipping the entries already in the list: the file is read the same way every
 * time, so they are its first entries.
 */
import type { BadRow, ColumnChoice, ListFilesRole } from '../../store/roles/list-files.js';
import type { ListRecord, ListsRole } from '../../store/roles/lists.js';
import type { Logger } from '../../logger.js';
import { silentLogger } from '../../logger.js';
import type { LapsedImport } from '../../store/roles/lease-kinds.js';
import type { LeasesRole } from '../../store/roles/leases.js';
import { LeaseKeeper, systemClock } from '../leases/lease-keeper.js';
import { ImportTakenOver } from '../../store/roles/lists.js';
import { AddressRows, listEntries, openTable, TableError } from '../../files/index.js';
import type { OpenedTable, RowProblem, TableLayout, TableLimits, TableRow } from '../../files/index.js';
import { looksLikeAddress, namesAddressColumn } from '../../files/layout.js';

/** Bytes per stored chunk of an uploaded file. */
const FILE_CHUNK = 256 * 1024;
/** Entries appended per transaction. */
const ENTRY_CHUNK = 5_000;
/** Bad rows kept per list (all are counted). */
export const BAD_ROWS_KEPT = 1_000;
const BAD_ROW_FLUSH = 500;
/** Rows looked at to tell whether several columns hold addresses. */
const SAMPLE = 100;

/** What the stored layout carries: the reader's layout and the widest row (the join lines rows up under one header). */
export interface StoredLayout {
  layout: TableLayout;
  width: number;
}

export type UploadOutcome = { kind: 'ready' | 'needs_column' | 'failed'; list: ListRecord; error?: string };

export interface ListUploadsDeps {
  lists: ListsRole;
  listFiles: ListFilesRole;
  leases: LeasesRole;
  /** The process's lease keeper (shared with its other work); none: a keeper of the uploads' own, started by `start`. */
  keeper?: LeaseKeeper;
  now?: () => Date;
  log?: Logger;
  /** The import's lease (config.leaseMs), for a keeper of the uploads' own; an import whose node died is taken over or failed once it lapses. */
  leaseMs?: number;
  /** The most entries a list may have (config.listMaxEntries). */
  maxEntries?: number;
  /** The bounds of reading the file (config.tableLimits; default src/files/limits.ts). */
  tableLimits?: TableLimits;
}

/** Default lease of an upload's import (config.leaseMs). */
const DEFAULT_LEASE_MS = 60_000;

/** The columns of a sample that hold addresses: named so in the header, or addresses in most of their cells. */
export function addressColumns(layout: TableLayout, sample: readonly TableRow[]): ColumnChoice[] {
  const width = Math.max(layout.header?.length ?? 0, ...sample.map((r) => r.cells.length));
  const filled = sample.filter((r) => r.cells.some((c) => c.trim() !== ''));
  const choices: ColumnChoice[] = [];
  for (let i = 0; i < width; i++) {
    const cells = filled.map((r) => r.cells[i] ?? '').filter((c) => c.trim() !== '');
    const addressLike = cells.filter(looksLikeAddress).length;
    const named = layout.header ? namesAddressColumn(layout.header[i] ?? '') : false;
    if (named || (addressLike > 0 && addressLike * 2 >= filled.length)) {
      const name = layout.header?.[i]?.trim();
      choices.push({ index: i, label: name ? name : `column ${i + 1}`, samples: cells.slice(0, 3) });
    }
  }
  return choices;
}

/** Lapsed imports taken over per round of the keeper. */
const TAKEOVERS_PER_ROUND = 4;

export class ListUploads {
  private readonly now: () => Date;
  private readonly keeper: LeaseKeeper;
  private readonly ownKeeper: boolean;
  private started = false;
  constructor(private readonly deps: ListUploadsDeps) {
    this.now = deps.now ?? (() => new Date());
    this.ownKeeper = !deps.keeper;
    this.keeper =
      deps.keeper ??
      new LeaseKeeper({ leases: deps.leases, leaseMs: deps.leaseMs ?? DEFAULT_LEASE_MS, clock: systemClock(this.now), log: deps.log ?? silentLogger });
  }

  /**
   * At every round of the keeper, takes over the imports from stored files whose node died (their
   * lease lapsed) and runs each again in the background, from the entries already in its list on;
   * other lapsed imports (kill -9 of `presend lists import`) end failed.
   */
  start(): void {
    if (this.started) return;
    this.started = true;
    this.keeper.takeOver('listImport', { room: () => TAKEOVERS_PER_ROUND, run: (taken) => this.resume(taken) });
    if (this.ownKeeper) this.keeper.start();
  }

  /** Stops a keeper of the uploads' own. */
  async stop(): Promise<void> {
    if (this.ownKeeper) await this.keeper.stop();
  }

  /** Streams an upload into a new list of the account. `column` names the address column (header name or number from 1). */
  async upload(input: { accountId: string; uploadedBy: string; fileName: string; name: string | null; stream: AsyncIterable<Uint8Array>; column?: string }): Promise<UploadOutcome> {
    const { lists } = this.deps;
    const now = this.now();
    const list = await lists.createList({ accountId: input.accountId, name: input.name ?? input.fileName, now, lease: this.keeper.grant() });
    const lease = this.keeper.hold('listImport', list.id);
    try {
      return await this.receive(list, input, lease);
    } finally {
      // Done, failed, or waiting for its column (which lapses like any import unless picked in time).
      this.keeper.drop('listImport', [list.id]);
    }
  }

  private async receive(
    list: ListRecord,
    input: { accountId: string; uploadedBy: string; fileName: string; stream: AsyncIterable<Uint8Array>; column?: string },
    lease: AbortSignal,
  ): Promise<UploadOutcome> {
    const { listFiles } = this.deps;
    const now = this.now();
    await listFiles.attachFile({ listId: list.id, accountId: input.accountId, fileName: input.fileName, uploadedBy: input.uploadedBy, now });
    const kept = this.keep(list.id, input.stream);
    try {
      const table = await openTable({ stream: kept.chunks }, { ...this.limits(), ...(input.column !== undefined ? { column: input.column } : {}) });
      const sample = await head(table, SAMPLE);
      const choices = input.column === undefined ? addressColumns(table.layout, sample.rows) : [];
      if (choices.length > 1) {
        await sample.rest.return(undefined);
        await kept.drain();
        await listFiles.describeFile(list.id, { sizeBytes: kept.size(), layoutJson: JSON.stringify({ layout: table.layout, width: 0 } satisfies StoredLayout), columnChoices: choices });
        return { kind: 'needs_column', list };
      }
      const done = await this.importRows(list.id, table.layout, concat(sample.rows, sample.rest), lease);
      await kept.drain();
      await listFiles.describeFile(list.id, { sizeBytes: kept.size(), layoutJson: JSON.stringify({ layout: table.layout, width: done.width } satisfies StoredLayout), columnChoices: null });
      return { kind: 'ready', list: done.list };
    } catch (err) {
      return { kind: 'failed', list: await this.fail(list.id, err, kept.drain), error: explain(err) };
    }
  }

  /**
   * The owner picked the address column of a waiting upload: the import runs from the stored
   * file, in the background. False when no choice was waiting (already taken).
   */
  async chooseColumn(accountId: string, listId: string, column: number): Promise<boolean> {
    const file = await this.deps.listFiles.getFile(accountId, listId);
    const choice = file?.columnChoices?.find((c) => c.index === column);
    if (!file?.layoutJson || !choice) return false;
    const stored = JSON.parse(file.layoutJson) as StoredLayout;
    const layout: TableLayout = { ...stored.layout, emailColumn: choice.index, emailColumnLabel: `"${choice.label}"` };
    // The import runs from here, leased to this process: a node that dies during it leaves it to another.
    if (!(await this.deps.listFiles.takeColumnChoice(accountId, listId, JSON.stringify({ layout, width: 0 } satisfies StoredLayout), this.keeper.grant()))) return false;
    void this.importStored(listId, layout, file.sizeBytes, 0);
    return true;
  }

  /** Runs an import taken over from a node that died, from the entries already in its list on. */
  private resume(taken: LapsedImport): void {
    this.deps.log?.warn({ listId: taken.listId, entries: taken.entries }, 'resuming a list import whose process stopped');
    const stored = JSON.parse(taken.layoutJson) as StoredLayout;
    void this.importStored(taken.listId, stored.layout, taken.sizeBytes, taken.entries);
  }

  /**
   * Imports a list from its stored file (the entries before position `skip` are in it already),
   * then records the file's layout; a failure fails the list. The import's lease is this
   * process's, kept by its keeper until the import ends.
   */
  private async importStored(listId: string, layout: TableLayout, sizeBytes: number, skip: number): Promise<void> {
    const lease = this.keeper.hold('listImport', listId);
    try {
      // A file past a bound fails here with a TableError, which fails the list: a failed list is never resumed.
      const table = await openTable({ stream: this.deps.listFiles.readFile(listId) }, { layout, ...this.limits() });
      const done = await this.importRows(listId, layout, table.rows, lease, skip);
      await this.deps.listFiles.describeFile(listId, { sizeBytes, layoutJson: JSON.stringify({ layout, width: done.width } satisfies StoredLayout), columnChoices: null });
    } catch (err) {
      if (err instanceof ImportTakenOver) {
        // A stall long enough for the lease to lapse: the run that took over finishes the list.
        this.deps.log?.warn({ listId }, 'a list import was taken over by another run; this one stops');
        return;
      }
      await this.fail(listId, err, async () => undefined).catch((failed: unknown) => this.deps.log?.warn({ listId, err: failed }, 'could not mark a list import failed'));
    } finally {
      this.keeper.drop('listImport', [listId]);
    }
  }

  private limits(): { limits?: TableLimits } {
    return this.deps.tableLimits ? { limits: this.deps.tableLimits } : {};
  }

  /** Deletes a list of the account with its kept file and bad rows; false for an unknown list or another account's. */
  delete(accountId: string, listId: string): Promise<boolean> {
    return this.deps.listFiles.deleteList(accountId, listId);
  }

  /**
   * Appends the rows' entries chunk by chunk, records the bad rows, and finishes the list: ready,
   * or failed when no address was found. The first `skip` entries are in the list already (a run
   * taken over): counted, not appended again; every chunk must land where this run expects it, and
   * none is appended once the lease is lost (`lease` aborted: the run that took over goes on).
   */
  private async importRows(listId: string, layout: TableLayout, rows: AsyncIterable<TableRow>, lease: AbortSignal, skip = 0): Promise<{ list: ListRecord; width: number }> {
    const { lists, listFiles } = this.deps;
    const classifier = new AddressRows(layout.emailColumn);
    let width = Math.max(layout.header?.length ?? 0, layout.emailColumn + 1);
    let bad: BadRow[] = [];
    const flushBad = async () => {
      if (bad.length === 0) return;
      const rowsToKeep = bad;
      bad = [];
      await listFiles.recordBadRows(listId, rowsToKeep, BAD_ROWS_KEPT);
    };
    const measured = (async function* () {
      for await (const row of rows) {
        width = Math.max(width, row.cells.length);
        yield row;
      }
    })();
    const entries = listEntries(measured, classifier, async (problem: RowProblem) => {
      bad.push({ line: problem.line, value: problem.given, problem: problem.problem });
      if (bad.length >= BAD_ROW_FLUSH) await flushBad();
    });
    let chunk: string[] = [];
    let count = 0;
    const max = this.deps.maxEntries ?? Number.POSITIVE_INFINITY;
    const append = async () => {
      if (lease.aborted) throw new ImportTakenOver(listId);
      await lists.appendListEntries(listId, chunk, count - chunk.length);
      chunk = [];
    };
    for await (const entry of entries) {
      count += 1;
      if (count > max) throw new TableError('too_many_rows', `the file has more than ${max.toLocaleString('en-US')} addresses, the most a list may have`);
      // Read past, not appended: what is in already (the keeper keeps the lease meanwhile).
      if (count <= skip) continue;
      chunk.push(entry);
      if (chunk.length === ENTRY_CHUNK) await append();
    }
    if (chunk.length > 0) await append();
    await flushBad();
    if (count === 0) throw new TableError('empty_file', `no addresses in ${layout.emailColumnLabel}`);
    return { list: await lists.finishListImport(listId, 'ready'), width };
  }

  private async fail(listId: string, err: unknown, drain: () => Promise<void>): Promise<ListRecord> {
    if (!(err instanceof TableError)) this.deps.log?.warn({ listId, err }, 'list upload failed');
    await drain().catch(() => undefined);
    await this.deps.listFiles.recordImportError(listId, explain(err), err instanceof TableError ? err.line : null);
    return this.deps.lists.finishListImport(listId, 'failed');
  }

  /** The upload as it passes: each chunk stored (in order) before the reader sees it. */
  private keep(listId: string, source: AsyncIterable<Uint8Array>) {
    const { listFiles } = this.deps;
    const iterator = source[Symbol.asyncIterator]();
    let size = 0;
    let seq = 0;
    let pending: Buffer[] = [];
    let pendingBytes = 0;
    let finished = false;
    const store = async (force: boolean) => {
      while (pendingBytes >= FILE_CHUNK || (force && pendingBytes > 0)) {
        const all = Buffer.concat(pending);
        const piece = all.subarray(0, FILE_CHUNK);
        const rest = all.subarray(piece.length);
        pending = rest.length > 0 ? [rest] : [];
        pendingBytes = rest.length;
        await listFiles.appendFileChunk(listId, seq++, piece.toString('base64'));
      }
    };
    const step = async (): Promise<Buffer | null> => {
      if (finished) return null;
      const read = await iterator.next();
      if (read.done) {
        finished = true;
        await store(true);
        return null;
      }
      const chunk = Buffer.from(read.value.buffer, read.value.byteOffset, read.value.byteLength);
      size += chunk.length;
      pending.push(chunk);
      pendingBytes += chunk.length;
      await store(false);
      return chunk;
    };
    // One read at a time, in order: the reader may still have one in flight when drain() starts.
    let last: Promise<Buffer | null> = Promise.resolve(null);
    const next = (): Promise<Buffer | null> => (last = last.then(step, step));
    return {
      chunks: (async function* () {
        for (let chunk = await next(); chunk !== null; chunk = await next()) yield chunk;
      })(),
      /** Reads (and keeps) what the reader left unread: the whole upload is always kept and always consumed. */
      drain: async () => {
        while ((await next()) !== null);
      },
      size: () => size,
    };
  }
}

async function head(table: OpenedTable, n: number): Promise<{ rows: TableRow[]; rest: AsyncGenerator<TableRow> }> {
  const rows: TableRow[] = [];
  while (rows.length < n) {
    const step = await table.rows.next();
    if (step.done) break;
    rows.push(step.value);
  }
  return { rows, rest: table.rows };
}

async function* concat(first: readonly TableRow[], rest: AsyncIterable<TableRow>): AsyncGenerator<TableRow> {
  yield* first;
  yield* rest;
}

function explain(err: unknown): string {
  if (err instanceof TableError) return err.message;
  const code = (err as { code?: string }).code;
  if (code === 'FST_REQ_FILE_TOO_LARGE') return 'the file is larger than this server accepts';
  return 'the file could not be imported';
}
