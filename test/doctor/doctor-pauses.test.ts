/**
 * `presend doctor` shows the pauses the workers hold (issue 22): on PostgreSQL they are kept in
 * the store, so the doctor — a process of its own — reads the pause a worker set for a route and
 * a provider, and names it on that route's row only.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import type { EgressRoute } from '../../src/core/egress/egress-routes.js';
import { RouteHealth } from '../../src/core/egress/route-health.js';
import { DOCTOR_EGRESS, doctorWorld, startMailWorld, type MailWorld } from '../../src/mailworld/index.js';
import type { DoctorReport } from '../../src/service/prober-health/doctor.js';
import { openBackend } from '../../src/store/open-backend.js';
import { freshDatabase } from '../backends.js';
import { CLI_NODE_ARGS } from '../cli-entry.js';

const fresh = await freshDatabase();
const skip = fresh.kind === 'skip' ? fresh.reason : false;

describe('presend doctor reads the route pauses from a PostgreSQL store', { skip }, () => {
  let world: MailWorld;
  before(async () => {
    world = await startMailWorld(doctorWorld());
  });
  after(async () => {
    await world.close();
    if (fresh.kind === 'ready') await fresh.db.drop();
  });

  test("a pause one worker holds shows on its route's row, and on no other", async () => {
    assert.ok(fresh.kind === 'ready');
    const url = fresh.db.url;
    const routes = [
      { name: 'a', source: DOCTOR_EGRESS.clean.ip, helo: DOCTOR_EGRESS.clean.helo },
      { name: 'b', source: DOCTOR_EGRESS.listed.ip, helo: DOCTOR_EGRESS.listed.helo },
    ];
    const worker = await openBackend(url);
    try {
      const asRoute = (r: (typeof routes)[number]): EgressRoute => ({ name: r.name, source: r.source, proxy: null, heloName: r.helo, providers: [] });
      const health = new RouteHealth(routes.map(asRoute), { now: () => Date.now(), pauses: worker.engineState.routePauses });
      await health.blocked('b', 'microsoft', 'microsoft-banned-ip');
    } finally {
      await worker.close();
    }
    const env = { PATH: process.env.PATH ?? '', ...world.env(), PRESEND_DATABASE_URL: url, PRESEND_EGRESS: JSON.stringify(routes), PRESEND_SMTP_TIMEOUT_MS: '3000', PRESEND_DNS_TIMEOUT_MS: '2000' };
    const stdout = await new Promise<string>((resolve, reject) => {
      execFile(process.execPath, [...CLI_NODE_ARGS, 'doctor', '--json'], { env, timeout: 60_000 }, (error, out, err) => {
        if (error && typeof error.code !== 'number') reject(new Error(`${error.message}\n${err}`));
        else resolve(out);
      });
    });
    const report = JSON.parse(stdout) as DoctorReport;
    const paused = report.checks.filter((c) => c.id === 'paused');
    assert.deepEqual(paused.map((c) => [c.route, c.status]), [['a', 'ok'], ['b', 'warn']]);
    assert.match(paused[1]?.summary ?? '', /^paused for microsoft until \S+ \(microsoft-banned-ip, 1 block\)$/);
  });
});
