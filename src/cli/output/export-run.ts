/**
 * `results --all` and `batch --wait --out`: a full export written as it arrives, with a
 * progress bar on a terminal. The item count to expect comes from the batch's counters.
 */
import type { PresendClient } from '../../client/index.js';
import { IncompleteExportError } from '../../client/index.js';
import type { Progress } from './progress.js';
import { createResultWriter, type OutputFormat } from './result-writer.js';

export interface ExportRun {
  format: OutputFormat;
  out?: string;
  limit?: number;
  cursor?: string;
  note(message: string): void;
  progress: Progress;
}

export async function exportToOutput(client: PresendClient, id: string, run: ExportRun): Promise<number> {
  const expected = await client.getRequest(id).then((batch) => batch.counters.unique ?? 0);
  const writer = createResultWriter(run.format, run.out);
  const { progress } = run;
  let received = 0;
  try {
    for await (const item of client.exportResults(id, {
      ...(run.limit !== undefined ? { limit: run.limit } : {}),
      ...(run.cursor !== undefined ? { cursor: run.cursor } : {}),
      onProgress: (p) => progress.update('downloading', p.received, expected, p.finalized ? 'finalized' : 'running'),
    })) {
      await writer.write(item);
      received += 1;
    }
    progress.stop();
    await writer.finish();
  } catch (error) {
    progress.stop();
    const partial = await writer.abandon();
    if (partial !== null && error instanceof IncompleteExportError) run.note(`${received} items kept in ${partial} (incomplete)`);
    throw error;
  }
  if (run.out !== undefined) run.note(`${received} results written to ${run.out}`);
  return received;
}
