/**
 * The cheap prober-health checks in a running service: logged at start-up, listed in /readyz's
 * warnings, and never a reason to fail readiness (src/service/prober-health/monitor.ts says why).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import { DOCTOR_EGRESS, doctorWorld, startMailWorld, type MailWorld } from '../../src/mailworld/index.js';
import { ProberHealthMonitor } from '../../src/service/prober-health/monitor.js';
import { startHarness } from '../api/harness.js';

function capturedLogger(): { lines: () => Array<Record<string, unknown>>; logger: ReturnType<typeof createLogger> } {
  const stream = new PassThrough();
  let text = '';
  stream.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
  return { logger: createLogger('info', stream), lines: () => text.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as Record<string, unknown>) };
}

/** A service whose /readyz lists the monitor's warnings, once the monitor's first run is done. */
async function withService(env: Record<string, string>, logger: ReturnType<typeof createLogger>, use: (readyz: () => Promise<{ status: number; body: any }>) => Promise<void>): Promise<void> { // eslint-disable-line @typescript-eslint/no-explicit-any
  const monitor = new ProberHealthMonitor(loadConfig(env), logger);
  monitor.start();
  const h = await startHarness({ env, server: { proberHealth: monitor } });
  try {
    await monitor.firstRun;
    await use(() => h.call('GET', '/readyz'));
  } finally {
    monitor.stop();
    await h.close();
  }
}

describe('the prober\'s health in a running service', () => {
  let world: MailWorld;
  before(async () => {
    world = await startMailWorld(doctorWorld());
  });
  after(async () => world.close());

  test('a listed egress is a /readyz warning and a start-up log line; the node stays ready', async () => {
    const env = { ...world.env(), PRESEND_EGRESS_IP: DOCTOR_EGRESS.listed.ip, PRESEND_HELO_NAME: DOCTOR_EGRESS.listed.helo };
    const log = capturedLogger();
    await withService(env, log.logger, async (readyz) => {
      const ready = await readyz();
      assert.equal(ready.status, 200);
      assert.equal(ready.body.status, 'ready');
      const warnings = ready.body.warnings as string[];
      assert.ok(warnings.some((w) => /^prober: 127\.0\.0\.10 is LISTED on zen\.spamhaus\.org/.test(w)), warnings.join('\n'));
      assert.ok(warnings.every((w) => w.startsWith('prober: ')), 'live checks are on: no other warning');
      const logged = log.lines();
      assert.ok(logged.some((l) => l.level === 40 && l.check === 'dnsbl:zen.spamhaus.org'), JSON.stringify(logged));
      assert.ok(logged.some((l) => l.msg === 'prober health (cheap checks; `presend doctor` runs them all)' && l.health === 'degraded'));
      assert.equal(world.recorder.sessions().length, 0, 'the cheap checks open no SMTP session');
    });
  });

  test('a broken prober (no DNS answers) is listed too, and readiness still holds', async () => {
    const env = { ...world.env(), PRESEND_DNS_SERVERS: '127.0.0.1:9', PRESEND_DNS_TIMEOUT_MS: '200' };
    await withService(env, createLogger(false), async (readyz) => {
      const ready = await readyz();
      assert.equal(ready.status, 200);
      assert.ok((ready.body.warnings as string[]).some((w) => /^prober: 127\.0\.0\.1:9 does not answer/.test(w)), JSON.stringify(ready.body));
    });
  });

  test('a healthy prober adds no warning', async () => {
    await withService(world.env(), createLogger(false), async (readyz) => assert.deepEqual((await readyz()).body, { status: 'ready' }));
  });
});
