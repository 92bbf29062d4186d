/**
 * The plain feedback CSV (docs/feedback.md): `email,event,date[,diagnostic]`, with or without that
 * header, read through the project's bounded CSV reader (src/files). `event` is `hard_bounce`,
 * `soft_bounce`, `bounce` (hard or soft from the diagnostic, bounce-kind.ts), `delivery`
 * (`delivered`) or `complaint` (`spam`). A row that cannot be read is reported with its line.
 */
import { createHash } from 'node:crypto';
import { isBlankRow, openTable } from '../files/index.js';
import type { TableInput } from '../files/index.js';
import { parseAddress } from '../core/syntax/address.js';
import { bounceKind, statusOf } from './bounce-kind.js';
import type { FeedbackEvent, FeedbackKind } from './events.js';

export type CsvEventRow = { line: number; event: FeedbackEvent } | { line: number; problem: string };

const EVENT_WORDS: Record<string, FeedbackKind | 'bounce'> = {
  hard_bounce: 'hard_bounce',
  hardbounce: 'hard_bounce',
  hard: 'hard_bounce',
  soft_bounce: 'soft_bounce',
  softbounce: 'soft_bounce',
  soft: 'soft_bounce',
  deferred: 'soft_bounce',
  bounce: 'bounce',
  bounced: 'bounce',
  delivery: 'delivery',
  delivered: 'delivery',
  complaint: 'complaint',
  complained: 'complaint',
  spam: 'complaint',
  spamreport: 'complaint',
};

const COLUMNS = ['email', 'event', 'date', 'diagnostic'] as const;

export async function* readCsvEvents(input: TableInput): AsyncGenerator<CsvEventRow> {
  // A first row naming an address column is the header (src/files/layout.ts); without one the columns are in the documented order.
  const table = await openTable(input, {});
  const header = table.layout.header?.map((h) => h.trim().toLowerCase()) ?? null;
  const at = (name: (typeof COLUMNS)[number]): number => (header ? header.indexOf(name) : COLUMNS.indexOf(name));
  const [emailAt, eventAt, dateAt, diagnosticAt] = COLUMNS.map(at) as [number, number, number, number];
  if (header && (eventAt < 0 || dateAt < 0)) throw new Error('the header must name the columns email, event and date (diagnostic is optional)');
  for await (const row of table.rows) {
    if (isBlankRow(row)) continue;
    const cell = (i: number): string => (i >= 0 ? (row.cells[i] ?? '').trim() : '');
    const parsed = parseAddress(cell(emailAt));
    if (!parsed.ok) {
      yield { line: row.line, problem: `not an email address: ${JSON.stringify(cell(emailAt).slice(0, 80))}` };
      continue;
    }
    const word = EVENT_WORDS[cell(eventAt).toLowerCase().replace(/[\s-]/g, '_')];
    if (!word) {
      yield { line: row.line, problem: `unknown event ${JSON.stringify(cell(eventAt).slice(0, 40))} (hard_bounce, soft_bounce, bounce, delivery or complaint)` };
      continue;
    }
    const time = Date.parse(cell(dateAt));
    if (!Number.isFinite(time)) {
      yield { line: row.line, problem: `not a date: ${JSON.stringify(cell(dateAt).slice(0, 40))} (ISO 8601, e.g. 2026-03-02T09:14:07Z)` };
      continue;
    }
    const diagnostic = cell(diagnosticAt) || null;
    // A diagnostic may be a bare status code (`5.1.1`) or a reply (`550 5.1.1 user unknown`).
    const status = diagnostic && /^[245]\.\d{1,3}\.\d{1,3}/.test(diagnostic) ? diagnostic : null;
    const kind: FeedbackKind = word === 'bounce' ? bounceKind(status, diagnostic) : word;
    const email = parsed.address.normalized;
    const iso = new Date(time).toISOString();
    const bounce = kind === 'hard_bounce' || kind === 'soft_bounce';
    yield {
      line: row.line,
      event: {
        email,
        kind,
        at: iso,
        code: bounce ? statusOf(status, diagnostic) : null,
        // The same row in two files (or one file imported twice) is one event.
        eventId: createHash('sha256').update(`${email}\n${kind}\n${iso}\n${diagnostic ?? ''}`).digest('base64url'),
      },
    };
  }
}
