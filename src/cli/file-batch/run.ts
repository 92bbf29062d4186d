/**
 * `presend batch FILE`: read the file (pass 1), verify its unique valid addresses in as many
 * batches as it takes (at most 10,000 each, Idempotency-Keys derived from their content so a
 * re-run resumes), wait, download every result, and write the caller's own file back with
 * the result columns (pass 2). One progress bar over the whole run.
 */
import { randomUUID } from 'node:crypto';
import type { BatchRequest, PresendClient, ResultItem } from '../../client/index.js';
import { planBatches } from '../../client/index.js';
import { openTable, parseRowSets, scanTable, summariseResult, writeJoinedTable, ROW_SETS, TableError, type ResultSummary, type RowSet, type TableScan } from '../../files/index.js';
import type { CallerContext } from '../output/caller.js';
import { EXIT, UsageError } from '../output/exit-codes.js';
import { untilNext } from '../output/batch-view.js';
import { inputFile, tableOptions, type TableFlags } from './input.js';
import { loadTableLimits } from '../../config.js';
import { joinedFormat, openJoinedOutput, type JoinedFormat } from './output.js';
import { describeBatches, describeCounts, describeLayout, inputJson, plural } from './report.js';

export interface FileBatchFlags extends TableFlags {
  wait?: boolean;
  out?: string;
  format?: string;
  only?: string;
  fresh?: boolean;
}

interface Outcome {
  batches: BatchRequest[];
  output: { file: string | null; format: JoinedFormat; rows: number; only: RowSet[] | null } | null;
}

function onlySets(flags: FileBatchFlags): Set<RowSet> | undefined {
  if (flags.only === undefined) return undefined;
  const sets = parseRowSets(flags.only);
  if (sets === null) throw new UsageError(`--only takes ${ROW_SETS.join(', ')} (or several, comma-separated), got "${flags.only}"`);
  return sets;
}

async function scan(path: string, name: string, flags: FileBatchFlags, context: CallerContext): Promise<TableScan> {
  const table = await openTable({ path }, tableOptions(flags));
  const result = await scanTable(table, {
    onRow: (row) => {
      if (row.row.line % 1000 === 0) context.progress.update('reading', row.row.line, row.row.line, name);
    },
  });
  if (result.counts.addresses === 0 && result.counts.invalid === 0) throw new TableError('empty_file', `no addresses in ${name}`);
  return result;
}

async function createAll(client: PresendClient, scanned: TableScan, flags: FileBatchFlags, context: CallerContext): Promise<BatchRequest[]> {
  const plan = planBatches(scanned.unique, flags.fresh ? { idempotencyNamespace: randomUUID() } : {});
  const created: BatchRequest[] = [];
  try {
    return await client.createBatches(plan, {
      onCreated: (batch) => created.push(batch),
      onProgress: (p) => {
        if (p.phase === 'creating') context.progress.update('creating', p.created, p.batches, p.replayed > 0 ? `${p.replayed} replayed` : '');
      },
    });
  } catch (error) {
    if (created.length > 0) {
      context.note(
        `${created.length} of ${plan.batches.length} batches were created before this error (${created.map((b) => b.request.id).join(', ')}). ` +
          'Run the same command again once it is fixed: the batches already created are replayed, not billed again.',
      );
    }
    throw error;
  }
}

async function downloadResults(client: PresendClient, batches: readonly BatchRequest[], unique: number, context: CallerContext): Promise<Map<string, ResultSummary>> {
  const results = new Map<string, ResultSummary>();
  const ids = batches.map((batch) => batch.request.id);
  for await (const item of client.exportBatches(ids, {
    expected: unique,
    onProgress: (p) => {
      if (p.phase === 'exporting') context.progress.update('downloading', p.received, p.unique);
    },
  }) as AsyncIterable<ResultItem>) {
    if (item.email !== undefined) results.set(item.email, summariseResult(item));
  }
  return results;
}

export async function runFileBatch(client: PresendClient, file: string, flags: FileBatchFlags, context: CallerContext): Promise<number> {
  const format = joinedFormat(flags);
  const only = onlySets(flags);
  if (only && format === null) throw new UsageError('--only filters the results file: give --out FILE (or --format)');
  const input = await inputFile(file);
  try {
    const scanned = await scan(input.path, input.name, flags, context);
    const say = context.json || format !== null ? context.note : (line: string) => process.stdout.write(`${line}\n`);
    say(describeLayout(input.name, scanned));
    for (const line of describeCounts(scanned)) say(line);

    let batches = scanned.unique.length > 0 ? await createAll(client, scanned, flags, context) : [];
    if (batches.length > 0) say(describeBatches(batches));
    const outcome: Outcome = { batches, output: null };
    if (!flags.wait && format === null) {
      if (batches.length > 0 && !context.json) say(`Wait and write your file back with the results: presend batch ${file} --out results.csv (the same batches are picked up, not billed again)`);
      return finish(context, input.name, scanned, outcome, EXIT.ok);
    }

    if (batches.length > 0) {
      batches = await client.waitForBatches(
        batches.map((batch) => batch.request.id),
        {
          onProgress: (p) => {
            if (p.phase !== 'verifying') return;
            const waiting = p.rechecking > 0 ? `${p.rechecking} waiting for a greylisting recheck${untilNext(p.nextRecheckInSeconds)}` : '';
            context.progress.update('verifying', p.finished, p.unique, [waiting, p.batches > 1 ? `${p.settled}/${p.batches} batches done` : ''].filter(Boolean).join(', '));
          },
        },
      );
      outcome.batches = batches;
      const failed = batches.filter((batch) => batch.request.state === 'failed');
      if (failed.length > 0) {
        context.note(`${plural(failed.length, 'batch', 'batches')} failed: ${failed.map((b) => `${b.request.id} (${b.request.errorCode ?? 'no error code'})`).join(', ')}; no results file was written`);
        return finish(context, input.name, scanned, outcome, EXIT.failure);
      }
    }
    if (format === null) return finish(context, input.name, scanned, outcome, EXIT.ok);

    const results = batches.length > 0 ? await downloadResults(client, batches, scanned.counts.unique, context) : new Map<string, ResultSummary>();
    const again = await openTable({ path: input.path }, { layout: scanned.layout, limits: loadTableLimits() });
    const output = await openJoinedOutput(format, flags.out, scanned.layout);
    let written;
    try {
      let rows = 0;
      written = await writeJoinedTable(again, {
        width: scanned.width,
        results,
        writer: output.writer,
        ...(only ? { only } : {}),
        onRow: () => {
          rows += 1;
          if (rows % 1000 === 0) context.progress.update('writing', rows, scanned.counts.rows);
        },
      });
      await output.commit();
    } catch (error) {
      const partial = await output.abandon();
      if (partial) context.note(`the results file is incomplete; what was written is in ${partial}`);
      throw error;
    }
    context.progress.stop();
    outcome.output = { file: flags.out ?? null, format, rows: written.rows, only: only ? [...only] : null };
    if (written.replacedColumns > 0) context.note(`the file already had ${plural(written.replacedColumns, 'presend_ column')}; they were replaced with this run's`);
    if (flags.out !== undefined) {
      context.note(`wrote ${flags.out}: ${plural(written.rows, 'row')}${only ? ` (only ${[...only].join(', ')})` : ' (every row of the file, in order)'}, your columns then the presend_ columns`);
    }
    return finish(context, input.name, scanned, outcome, EXIT.ok);
  } finally {
    await input.remove();
  }
}

function finish(context: CallerContext, name: string, scanned: TableScan, outcome: Outcome, code: number): number {
  context.progress.stop();
  // stdout carries the JSON report unless the results themselves went there.
  if (context.json && !(outcome.output && outcome.output.file === null)) {
    process.stdout.write(`${JSON.stringify({ input: inputJson(name, scanned), batches: outcome.batches, output: outcome.output }, null, 2)}\n`);
  }
  return code;
}
