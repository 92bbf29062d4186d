/**
 * A feedback file in (docs/feedback.md): a CSV of events or bounce messages (an .eml, an mbox, a
 * Maildir), read as a stream and recorded in chunks. Each chunk is one transaction of the store
 * with the import's counts, and every event carries its own id, so an import stopped half-way (a
 * crash, a kill) leaves whole chunks behind, and running it again adds only what is missing.
 * The import is leased to the process reading it (kind `feedbackImport`, renewed by its lease
 * keeper): one killed half-way lets the lease lapse and is marked failed by the next serving
 * process's keeper, never left `running`; one whose lease is lost stops reading.
 * Rows and messages that cannot be read are counted and reported with their line or position, and
 * so are events older than feedback events are kept (src/feedback/event-retention.ts): they may
 * have been taken and purged already, and are not counted twice.
 */
import { stat } from 'node:fs/promises';
import type { FeedbackRole } from '../../store/roles/feedback/feedback.js';
import type { FeedbackImport } from '../../store/roles/feedback/feedback-records.js';
import { readCsvEvents } from '../../feedback/csv-events.js';
import { readDsn } from '../../feedback/dsn.js';
import type { FeedbackEvent } from '../../feedback/events.js';
import { readMailItems } from '../../feedback/mail-sources.js';
import { DEFAULT_FEEDBACK_EVENTS_RETENTION_DAYS, feedbackEventCutoff, isPastRetention, pastRetentionProblem } from '../../feedback/event-retention.js';
import type { LeaseKeeper } from '../leases/lease-keeper.js';

export const IMPORT_CHUNK_EVENTS = 500;
/** Problems kept for the report; past it they are only counted. */
const PROBLEMS_KEPT = 100;

export type FeedbackFileFormat = 'csv' | 'dsn';

/** One readable unit of the file: its events, or why it could not be read. `where` is a line or a message's position. */
export type FeedbackPiece = { where: string; events: FeedbackEvent[] } | { where: string; problem: string };

export interface FeedbackImportReport {
  import: FeedbackImport;
  problems: Array<{ where: string; problem: string }>;
  /** The file stopped being readable part-way (the chunks before it are recorded). */
  stoppedBy: string | null;
}

/** `csv` for a .csv/.tsv/.txt file, else bounce messages. */
export async function formatOf(path: string): Promise<FeedbackFileFormat> {
  const info = await stat(path);
  return info.isFile() && /\.(csv|tsv|txt)$/i.test(path) ? 'csv' : 'dsn';
}

export async function* piecesOf(path: string, format: FeedbackFileFormat): AsyncGenerator<FeedbackPiece> {
  if (format === 'csv') {
    for await (const row of readCsvEvents({ path })) {
      yield 'event' in row ? { where: `line ${row.line}`, events: [row.event] } : { where: `line ${row.line}`, problem: row.problem };
    }
    return;
  }
  for await (const item of readMailItems(path)) {
    if ('problem' in item) {
      yield item;
      continue;
    }
    const read = await readDsn(item.raw, item.where);
    yield read.ok ? { where: item.where, events: read.events } : { where: item.where, problem: read.problem };
  }
}

export interface ImportOptions {
  feedback: FeedbackRole;
  accountId: string;
  /** `csv` or `dsn`: the source the events are recorded under. */
  source: FeedbackFileFormat;
  name: string;
  pieces: AsyncIterable<FeedbackPiece>;
  now: () => Date;
  chunkEvents?: number;
  /** PRESEND_FEEDBACK_EVENTS_RETENTION_DAYS (default 365): older events are reported, not taken. */
  eventsRetentionDays?: number;
  /** The process's lease keeper: the import is leased while it runs. None: not leased (it cannot lapse). */
  keeper?: LeaseKeeper;
}

export async function importFeedback(o: ImportOptions): Promise<FeedbackImportReport> {
  const importId = await o.feedback.startImport({ accountId: o.accountId, source: o.source, name: o.name, now: o.now(), ...(o.keeper ? { lease: o.keeper.grant() } : {}) });
  const lease = o.keeper?.hold('feedbackImport', importId);
  try {
    return await readInto(o, importId, lease);
  } finally {
    o.keeper?.drop('feedbackImport', [importId]);
  }
}

/** Records the pieces in chunks while the lease is held; the import ends completed, or failed when the file stopped being readable or the lease was lost. */
async function readInto(o: ImportOptions, importId: string, lease: AbortSignal | undefined): Promise<FeedbackImportReport> {
  const size = o.chunkEvents ?? IMPORT_CHUNK_EVENTS;
  const problems: FeedbackImportReport['problems'] = [];
  let events: FeedbackEvent[] = [];
  let rejected = 0;
  let lastError: string | null = null;
  const flush = async (): Promise<void> => {
    if (events.length === 0 && rejected === 0) return;
    await o.feedback.record({ accountId: o.accountId, source: o.source, events, importId, rejected, lastError, now: o.now() });
    events = [];
    rejected = 0;
    lastError = null;
  };
  let stoppedBy: string | null = null;
  const retentionDays = o.eventsRetentionDays ?? DEFAULT_FEEDBACK_EVENTS_RETENTION_DAYS;
  const reject = (where: string, problem: string): void => {
    rejected++;
    lastError = `${where}: ${problem}`;
    if (problems.length < PROBLEMS_KEPT) problems.push({ where, problem });
  };
  try {
    for await (const piece of o.pieces) {
      // Another process ended this import (its lease lapsed while this one stalled): what was recorded stays.
      if (lease?.aborted) throw lease.reason;
      if ('problem' in piece) {
        reject(piece.where, piece.problem);
      } else {
        const cutoff = feedbackEventCutoff(o.now(), retentionDays);
        for (const event of piece.events) {
          if (isPastRetention(event, cutoff)) reject(piece.where, pastRetentionProblem(retentionDays));
          else events.push(event);
        }
      }
      if (events.length >= size || rejected >= size) await flush();
    }
  } catch (err) {
    // The file cannot be read on (an unclosed quote, a read error): what was read before is kept.
    stoppedBy = err instanceof Error ? err.message : String(err);
  }
  if (!lease?.aborted) await flush();
  const finished = await o.feedback.finishImport(importId, stoppedBy ? 'failed' : 'completed', o.now());
  return { import: finished, problems, stoppedBy };
}
