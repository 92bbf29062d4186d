/**
 * Issue 21, defect 1: a 4.4 MB workbook — one row of ten inline strings of 450 M characters
 * each — took a serving process to "heap out of memory"; when the file waited for its owner's
 * choice of column, the import from the stored file crashed it again at every start-up. Here the
 * bomb is uploaded through the dashboard to a real `presend serve` process, on SQLite and on
 * PostgreSQL, and must be refused cleanly, naming the bound, with the process's peak RSS (VmHWM,
 * from /proc) bounded; the one behind a column choice fails its import the same way, and a
 * restart does not run it again.
 *
 * The cells here are 45 M characters, not 450 M, so that the test builds its files in about a
 * second: the bound that refuses them is 32,767 characters a cell (src/files/limits.ts), a
 * thousand times below, and a reader without it holds the 450 MB row (the copy before the fix
 * peaked far above the bound below). The full-size bomb also unpacks past
 * PRESEND_XLSX_MAX_UNZIPPED_MB, which test/files/limits.test.ts covers from the zip directory.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startPresend, type PresendProcess } from '../scale/presend-process.js';
import { BACKENDS, openDatabase } from '../backends.js';
import { bombSheet, writeWorkbook } from '../files/hostile-workbooks.js';
import { createOwner, DashboardBrowser } from './dashboard-client.js';
import { until } from '../until.js';

/** A generous bound on the serving process's peak resident memory (a bound, not a measurement). */
const MAX_PEAK_RSS_MB = 600;
const CELLS = 10;
const CELL_CHARS = 45_000_000;

async function peakRssMb(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/^VmHWM:\s+(\d+) kB/m.exec(status)?.[1]);
  assert.ok(kb > 0, 'VmHWM is readable');
  return kb / 1024;
}

describe('an upload bomb (issue 21, defect 1)', () => {
  let dir = '';
  let bomb = '';
  let waitingBomb = '';
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'presend-bomb-'));
    bomb = join(dir, 'bomb.xlsx');
    waitingBomb = join(dir, 'two-columns-then-bomb.xlsx');
    // Streamed: neither file is ever held whole, here or in the server.
    await writeWorkbook(bomb, bombSheet({ cells: CELLS, cellChars: CELL_CHARS }));
    // 120 rows of two address columns first: the upload stops at its sample and waits for the column.
    await writeWorkbook(waitingBomb, bombSheet({ cells: CELLS, cellChars: CELL_CHARS, before: 120 }));
  });
  after(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  for (const store of BACKENDS) {
    test(`${store.name}: refused naming the bound, the server's peak RSS under ${MAX_PEAK_RSS_MB} MB, and a restart does not resume the import`, async (t) => {
      if (store.skip) return t.skip(store.skip);
      const opened = await openDatabase(store.name, dir);
      const env = { PRESEND_DATABASE_URL: opened.url, PRESEND_LOG_LEVEL: 'info' };
      const serve = () => startPresend('serve', ['serve', '--host', '127.0.0.1', '--port', '0', '--no-worker'], env);
      let server: PresendProcess = serve();
      t.after(async () => {
        await server.stop();
        await opened.drop();
      });
      const url = (await server.waitFor(/"url":"(http:\/\/127\.0\.0\.1:\d+)"/))[1] as string;
      assert.ok((await stat(bomb)).size < 5 * 1024 * 1024, 'a small file: a few megabytes zipped');

      const owner = await createOwner(env, url, `bomb-${store.name.toLowerCase()}`, 'ann@bomb.example');
      let browser = new DashboardBrowser(url);
      await browser.setPassword(owner.link, 'correct horse battery staple');
      await browser.signIn(owner.email, 'correct horse battery staple');

      // The bomb itself: refused at once, as the upload streams.
      const refused = await browser.upload(bomb, 'bomb.xlsx');
      assert.equal((await browser.listState(refused)).state, 'failed');
      const pid = server.child.pid as number;
      const afterBomb = await peakRssMb(pid);
      assert.ok(afterBomb < MAX_PEAK_RSS_MB, `the serving process peaked at ${afterBomb.toFixed(0)} MB of RSS reading the bomb`);
      t.diagnostic(`peak RSS of the serving process after the bomb: ${afterBomb.toFixed(0)} MB`);
      assert.match(await browser.listPage(refused), /longer than 32,767 characters, the most a spreadsheet cell holds/);

      // Behind a column choice: the import from the stored file meets the bomb and fails the list.
      const waiting = await browser.upload(waitingBomb, 'two-columns.xlsx');
      assert.deepEqual(await browser.listState(waiting), { state: 'importing', entries: 0, columnChoice: true });
      await browser.chooseColumn(waiting, 1);
      const ended = await until('the import from the stored file ends', async () => {
        const state = await browser.listState(waiting);
        return state.state === 'importing' ? null : state;
      }, 60_000, 100);
      assert.equal(ended.state, 'failed');
      assert.match(await browser.listPage(waiting), /line 121: a cell is longer than 32,767 characters/);
      const peak = await peakRssMb(pid);
      assert.ok(peak < MAX_PEAK_RSS_MB, `the serving process peaked at ${peak.toFixed(0)} MB of RSS`);
      assert.equal(server.child.exitCode, null, 'the server is still up');

      // A restart runs the start-up housekeeping, which takes over lapsed imports: not this one.
      await server.stop();
      server = serve();
      const again = (await server.waitFor(/"url":"(http:\/\/127\.0\.0\.1:\d+)"/))[1] as string;
      browser = new DashboardBrowser(again);
      await browser.signIn(owner.email, 'correct horse battery staple');
      assert.equal((await browser.listState(waiting)).state, 'failed');
      assert.doesNotMatch(server.output(), /resuming a list import/);
      assert.ok((await peakRssMb(server.child.pid as number)) < MAX_PEAK_RSS_MB);
    });
  }
});
