/**
 * Benchmark 6: a full export of a large batch with the SDK at the default rate limits
 * (issue 12, finding 7: results pages used to share the key's bucket of 20 requests/s with the
 * checks, so 1,000,000 results took minutes). One list of PRESEND_BENCH_EXPORT_SIZE addresses
 * (default 1,000,000) is imported, verified as one batch on a `ps_test.` key, then exported with
 * `PresendClient.exportResults` and its defaults, three ways on the same store (the server
 * restarted between them):
 * - the default limits (reads in their own bucket, 200/s, bursts of 400);
 * - no read limit at all (the floor: what the server and the SDK manage);
 * - the reads in a bucket of the old size (20/s, bursts of 40): the first OLD_PAGES pages only,
 *   extrapolated to the whole export.
 */
import { writeFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { PresendClient } from '../src/client/index.js';
import { sandboxBatch } from './batch.js';
import { table, targetRow, type Section } from './section.js';
import { accountWithKey, freePort, presendAdmin, presendRunner, serviceEnv, startPresend, waitReady } from './service-process.js';
import { fmt } from './stats.js';

const SIZE = Number(process.env.PRESEND_BENCH_EXPORT_SIZE ?? 1_000_000);
const TARGET_MS_PER_MILLION = 60_000;
const PAGE = 200;
/** Pages read at the old bucket size (20/s): enough to pass its burst and settle at its rate. */
const OLD_PAGES = 200;
const ACCOUNT = 'bench-export';

interface Exported {
  ms: number;
  items: number;
  pages: number;
  /** 429 answers the SDK met (and waited out). */
  throttled: number;
}

/** The SDK with its defaults, counting the answers it got. */
function countingClient(baseUrl: string, apiKey: string): { client: PresendClient; statuses: number[] } {
  const statuses: number[] = [];
  const counting: typeof fetch = async (input, init) => {
    const response = await fetch(input, init);
    statuses.push(response.status);
    return response;
  };
  return { client: new PresendClient({ baseUrl, apiKey, fetch: counting }), statuses };
}

async function exportWith(baseUrl: string, apiKey: string, id: string, maxItems = Number.POSITIVE_INFINITY): Promise<Exported> {
  const { client, statuses } = countingClient(baseUrl, apiKey);
  const started = performance.now();
  let items = 0;
  for await (const item of client.exportResults(id)) {
    if (item.email) items++;
    if (items >= maxItems) break;
  }
  const ms = performance.now() - started;
  return { ms, items, pages: statuses.filter((s) => s === 200).length, throttled: statuses.filter((s) => s === 429).length };
}

export async function exportBench(): Promise<Section> {
  const port = await freePort();
  const service = serviceEnv(port);
  // The default rate limits: the point of this benchmark.
  delete service.env.PRESEND_RATE_LIMIT_PER_SECOND;
  delete service.env.PRESEND_RATE_LIMIT_BURST;
  const baseUrl = `http://127.0.0.1:${port}`;
  const key = await accountWithKey(service.env, ACCOUNT, true);
  const file = join(service.dir, 'list.txt');
  writeFileSync(file, `email\n${sandboxBatch(0, SIZE).join('\n')}\n`);
  let t0 = performance.now();
  const list = await presendAdmin<{ id: string; entries: number }>(['lists', 'import', file, '--account', ACCOUNT], service.env);
  const importMs = performance.now() - t0;
  process.stdout.write(`  export: imported ${fmt(list.entries)} addresses in ${fmt(importMs)} ms\n`);

  const serve = async (extra: Record<string, string>, name: string) => {
    const server = await startPresend(['serve'], { ...service.env, ...extra }, join(service.dir, `${name}.log`));
    await waitReady(`${baseUrl}/healthz`, server.child);
    return server;
  };
  let id = '';
  let verifyMs = Number.NaN;
  const none: Exported = { ms: Number.NaN, items: 0, pages: 0, throttled: 0 };
  let atDefaults = none;
  let unlimited = none;
  let old = none;
  try {
    let server = await serve({}, 'defaults');
    try {
      const client = new PresendClient({ baseUrl, apiKey: key });
      t0 = performance.now();
      id = (await client.createRequest({ listId: list.id })).request.id;
      for (;;) {
        const status = await client.getRequest(id);
        if (status.request.finalized || status.request.state === 'failed') break;
        await new Promise((resolve) => setTimeout(resolve, 1000));
      }
      verifyMs = performance.now() - t0;
      process.stdout.write(`  export: batch of ${fmt(SIZE)} finalized in ${fmt(verifyMs)} ms\n`);
      atDefaults = await exportWith(baseUrl, key, id);
      process.stdout.write(`  export at the default limits: ${fmt(atDefaults.items)} results in ${fmt(atDefaults.ms)} ms (${atDefaults.throttled} × 429)\n`);
    } finally {
      await server.stop();
    }
    server = await serve({ PRESEND_RESULTS_RATE_LIMIT_PER_SECOND: '1000000', PRESEND_RESULTS_RATE_LIMIT_BURST: '1000000' }, 'unlimited');
    try {
      unlimited = await exportWith(baseUrl, key, id);
      process.stdout.write(`  export without a read limit: ${fmt(unlimited.items)} results in ${fmt(unlimited.ms)} ms\n`);
    } finally {
      await server.stop();
    }
    server = await serve({ PRESEND_RESULTS_RATE_LIMIT_PER_SECOND: '20', PRESEND_RESULTS_RATE_LIMIT_BURST: '40' }, 'old-bucket');
    try {
      old = await exportWith(baseUrl, key, id, OLD_PAGES * PAGE);
      process.stdout.write(`  export at 20/s (the old shared bucket): ${fmt(old.items)} results in ${fmt(old.ms)} ms\n`);
    } finally {
      await server.stop();
    }
  } finally {
    rmSync(service.dir, { recursive: true, force: true });
  }
  const perMillion = (e: Exported): number => (e.ms / e.items) * 1_000_000;
  const oldMs = perMillion(old);
  const body = [
    `\`presend serve\` (SQLite store in a temp dir, ${(await presendRunner()).label}) at the **default rate limits**. One list of ${fmt(SIZE)} addresses ` +
      `(\`presend lists import\`, ${fmt(importMs)} ms) verified as one batch on a \`ps_test.\` sandbox key (\`POST /v1/requests {listId}\` to finalized: ${fmt(verifyMs)} ms), ` +
      'then exported with the SDK (`PresendClient.exportResults`, its defaults: pages of 200, 4 retries that wait `Retry-After`). ' +
      'The same store is then served again without a read limit (the floor: server and SDK alone), and with reads in a bucket of the old size, 20/s with bursts of 40 ' +
      `(results pages used to share the checks' bucket; the first ${fmt(OLD_PAGES)} pages, extrapolated). ` +
      `Reproduce: \`npm run bench -- export\` (\`PRESEND_BENCH_EXPORT_SIZE=N\` for another size).`,
    '',
    table(
      ['export', 'results', 'time', 'pages', '429s met', 'per 1,000,000 results', 'against the floor'],
      [
        ['default limits (reads: 200/s, bursts of 400)', fmt(atDefaults.items), `${fmt(atDefaults.ms)} ms`, fmt(atDefaults.pages), fmt(atDefaults.throttled), `${fmt(perMillion(atDefaults) / 1000, 1)} s`, `${fmt(atDefaults.ms / unlimited.ms, 2)}×`],
        ['no read limit (floor)', fmt(unlimited.items), `${fmt(unlimited.ms)} ms`, fmt(unlimited.pages), fmt(unlimited.throttled), `${fmt(perMillion(unlimited) / 1000, 1)} s`, '1.00×'],
        ['old bucket size (20/s, bursts of 40), first pages', fmt(old.items), `${fmt(old.ms)} ms`, fmt(old.pages), fmt(old.throttled), `${fmt(oldMs / 1000, 1)} s (extrapolated)`, `${fmt(perMillion(old) / perMillion(unlimited), 1)}×`],
      ],
    ),
  ].join('\n');
  return {
    id: 'export',
    title: '6. Full export at the default limits',
    body,
    summary: [
      targetRow(
        `export: ${fmt(SIZE)} results with the SDK at default limits${SIZE === 1_000_000 ? '' : ' (per 1,000,000)'}`,
        `${fmt(perMillion(atDefaults) / 1000, 1)} s per 1,000,000 (floor without a read limit ${fmt(perMillion(unlimited) / 1000, 1)} s)`,
        perMillion(atDefaults),
        'at most',
        TARGET_MS_PER_MILLION,
        ' ms',
      ),
    ],
  };
}
