/**
 * `presend doctor` over several egress routes (PRESEND_EGRESS): each route's canary session
 * leaves from its own loopback source address, so the canary names each route's address and
 * each is checked on its own — one listed, one healthy, one behind a proxy that refuses port 25.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { loadConfig } from '../../src/config.js';
import { DOCTOR_EGRESS, doctorWorld, startMailWorld, startSocksProxy, type MailWorld, type SocksProxy } from '../../src/mailworld/index.js';
import { cheapChecks, runDoctor } from '../../src/service/prober-health/doctor.js';

describe('presend doctor per egress route', () => {
  let world: MailWorld;
  let proxy: SocksProxy;
  before(async () => {
    world = await startMailWorld(doctorWorld());
    proxy = await startSocksProxy({ refusePorts: [world.smtpPort] });
  });
  after(async () => {
    await proxy.close();
    await world.close();
  });

  const routes = () =>
    JSON.stringify([
      { name: 'a', source: DOCTOR_EGRESS.clean.ip, helo: DOCTOR_EGRESS.clean.helo },
      { name: 'b', source: DOCTOR_EGRESS.listed.ip, helo: DOCTOR_EGRESS.listed.helo },
      { name: 'c', proxy: proxy.url, helo: DOCTOR_EGRESS.clean.helo },
    ]);

  test('each route is checked from its own address: a healthy, b listed, c refused by its proxy', async () => {
    const { PRESEND_HELO_NAME: _helo, ...env } = world.env();
    const report = await runDoctor(loadConfig({ ...env, PRESEND_EGRESS: routes(), PRESEND_SMTP_TIMEOUT_MS: '3000' }));
    assert.deepEqual(
      report.routes.map((r) => [r.name, r.egressIp, r.egressSource]),
      [
        ['a', DOCTOR_EGRESS.clean.ip, 'ehlo_reply'],
        ['b', DOCTOR_EGRESS.listed.ip, 'ehlo_reply'],
        ['c', null, null],
      ],
    );
    const of = (route: string) => report.checks.filter((c) => c.route === route);
    assert.deepEqual(of('a').filter((c) => c.status !== 'ok'), [], 'route a is healthy');
    const bFailed = of('b').filter((c) => c.status === 'fail').map((c) => c.id);
    assert.deepEqual(bFailed, ['dnsbl:zen.spamhaus.org', 'dnsbl:b.barracudacentral.org']);
    assert.equal(of('b').find((c) => c.id === 'ptr')?.status, 'ok', 'its PTR is its own: probe10.presend.test');
    const c = of('c').find((check) => check.id === 'port25');
    assert.match(c?.summary ?? '', /reply 0x02 "connection not allowed by ruleset"/);
    assert.equal(report.health, 'broken');
    assert.equal(report.exitCode, 2);
  });

  test('the cheap checks look at a route\'s source address only when it is public', async () => {
    const { PRESEND_HELO_NAME: _helo, ...env } = world.env();
    const report = await cheapChecks(loadConfig({ ...env, PRESEND_EGRESS: routes() }));
    assert.deepEqual(report.routes.map((r) => r.egressIp), [null, null, null], 'loopback sources are not what receivers see');
    assert.deepEqual(report.checks.filter((c) => c.route !== null).map((c) => `${c.route}:${c.id}`), ['a:helo_resolves', 'b:helo_resolves', 'c:helo_resolves']);
  });
});
