/**
 * The doctor's checks in-process, for the cases the process test does not cover: other proxy
 * answers, a canary that blocks us at its greeting, no PTR, SPF that leaves the egress out, a
 * resolver that does not answer, the reply history, and the cheap checks of /readyz.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createSocket } from 'node:dgram';
import { loadConfig } from '../../src/config.js';
import { DOCTOR_EGRESS, doctorWorld, startMailWorld, startSocksProxy, type MailWorld, type SocksProxy } from '../../src/mailworld/index.js';
import { cheapChecks, runDoctor } from '../../src/service/prober-health/doctor.js';
import { replyHistoryChecks } from '../../src/service/prober-health/reply-history.js';
import { checkOf as check } from './report.js';

describe('the doctor\'s checks', () => {
  let world: MailWorld;
  const proxies: SocksProxy[] = [];
  let env: Record<string, string>;
  before(async () => {
    const spec = doctorWorld();
    spec.hosts.push(
      { name: 'blocking.presend.test', behaviour: { kind: 'block_on_connect', reply: '554 5.7.1 Service unavailable; Client host [127.0.0.1] blocked using zen.spamhaus.org' } },
      { name: 'closed.presend.test', behaviour: { kind: 'refuse' } },
    );
    world = await startMailWorld(spec);
    env = { ...world.env(), PRESEND_SMTP_TIMEOUT_MS: '3000', PRESEND_DNS_TIMEOUT_MS: '2000' };
  });
  after(async () => {
    await Promise.all(proxies.map((p) => p.close()));
    await world.close();
  });
  const proxy = async (options: Parameters<typeof startSocksProxy>[0]): Promise<SocksProxy> => {
    const started = await startSocksProxy(options);
    proxies.push(started);
    return started;
  };

  test('through a proxy that allows port 25, the route is healthy and its egress is what the canary saw', async () => {
    const open = await proxy({});
    const report = await runDoctor(loadConfig({ ...env, PRESEND_SMTP_PROXY: open.url }));
    assert.deepEqual(report.checks.filter((c) => c.status !== 'ok'), []);
    assert.equal(report.exitCode, 0);
    assert.equal(report.routes[0]?.name, 'proxy');
    assert.deepEqual([report.routes[0]?.egressIp, report.routes[0]?.egressSource], ['127.0.0.1', 'ehlo_reply']);
    assert.equal(open.counts.granted, 1);
  });

  test('a proxy that answers 0x05 "connection refused" is named apart from a ruleset refusal', async () => {
    const refusing = await proxy({ refusePorts: [world.smtpPort], refusal: 'refused' });
    const report = await runDoctor(loadConfig({ ...env, PRESEND_SMTP_PROXY: refusing.url }));
    const port25 = check(report, 'port25');
    assert.equal(port25.status, 'fail');
    assert.match(port25.summary, /reply 0x05 "connection refused"/);
    assert.match(port25.meaning, /blocks port 25, or the canary refused it/);
    assert.equal(report.health, 'broken');
  });

  test('a proxy that is not there is named as such', async () => {
    const gone = await proxy({});
    await gone.close();
    const report = await runDoctor(loadConfig({ ...env, PRESEND_SMTP_PROXY: gone.url }));
    assert.match(check(report, 'port25').summary, /no session through the proxy socks5:\/\/127\.0\.0\.1:\d+/);
    assert.equal(report.exitCode, 2);
  });

  test('a canary that refuses connections makes the route broken; one that blocks at its greeting, degraded with its text', async () => {
    const closed = await runDoctor(loadConfig({ ...env, PRESEND_CANARY_MX: 'closed.presend.test' }));
    assert.equal(check(closed, 'port25').status, 'fail');
    assert.match(check(closed, 'port25').summary, /the connection to closed\.presend\.test .* failed/);
    assert.equal(closed.health, 'broken');
    const blocking = await runDoctor(loadConfig({ ...env, PRESEND_CANARY_MX: 'blocking.presend.test' }));
    const port25 = check(blocking, 'port25');
    assert.deepEqual([port25.status, port25.impact], ['fail', 'degraded']);
    assert.match(port25.summary, /refused the session at its greeting: 554 5\.7\.1 .*blocked using zen\.spamhaus\.org/);
    assert.equal(blocking.health, 'degraded');
  });

  test('an egress without PTR, and SPF records that leave it out or are missing', async () => {
    const noPtr = await runDoctor(loadConfig({ ...env, PRESEND_EGRESS_IP: DOCTOR_EGRESS.noPtr.ip, PRESEND_HELO_NAME: DOCTOR_EGRESS.noPtr.helo }));
    assert.equal(check(noPtr, 'ptr').status, 'fail');
    assert.match(check(noPtr, 'ptr').summary, /127\.0\.0\.13 has no PTR record/);
    assert.equal(noPtr.checks.some((c) => c.id === 'helo_matches_ptr'), false, 'nothing to compare the HELO name with');
    const strict = await runDoctor(loadConfig({ ...env, PRESEND_MAIL_FROM: 'probe@strict.test' }));
    const spf = check(strict, 'spf');
    assert.equal(spf.status, 'fail');
    assert.match(spf.summary, /SPF of strict\.test gives fail for 127\.0\.0\.1/);
    const none = await runDoctor(loadConfig({ ...env, PRESEND_MAIL_FROM: 'probe@nospf.test' }));
    assert.equal(check(none, 'spf').status, 'warn');
    assert.match(check(none, 'spf').summary, /nospf\.test has no SPF record/);
  });

  test('a resolver that does not answer makes the prober broken', async () => {
    const silent = createSocket('udp4'); // takes queries and answers none
    await new Promise<void>((resolve) => silent.bind(0, '127.0.0.1', resolve));
    try {
      const report = await runDoctor(loadConfig({ ...env, PRESEND_DNS_SERVERS: `127.0.0.1:${silent.address().port}`, PRESEND_DNS_TIMEOUT_MS: '300' }));
      const resolver = check(report, 'resolver');
      assert.deepEqual([resolver.status, resolver.impact], ['fail', 'broken']);
      assert.match(resolver.summary, /127\.0\.0\.1:\d+ does not answer/);
      assert.equal(report.exitCode, 2);
    } finally {
      silent.close();
    }
  });

  test('the cheap checks open no SMTP session, and look at the egress only when PRESEND_EGRESS_IP names it', async () => {
    world.reset();
    const plain = await cheapChecks(loadConfig(env));
    assert.deepEqual(plain.checks.map((c) => c.id), ['resolver', 'sender_domain', 'helo_resolves']);
    const listed = await cheapChecks(loadConfig({ ...env, PRESEND_EGRESS_IP: DOCTOR_EGRESS.listed.ip, PRESEND_HELO_NAME: DOCTOR_EGRESS.listed.helo }));
    assert.equal(check(listed, 'dnsbl:zen.spamhaus.org').status, 'fail');
    assert.equal(check(listed, 'spf').status, 'ok');
    assert.equal(world.recorder.sessions().length, 0, 'no SMTP session');
    const unconfigured = await cheapChecks(loadConfig({ PRESEND_DNS_SERVERS: env.PRESEND_DNS_SERVERS }));
    assert.equal(check(unconfigured, 'probe_identity').impact, 'broken');
    assert.equal(unconfigured.health, 'broken');
  });
});

describe('how providers answered recently', () => {
  const results = (family: string, n: number, reasons: string[]) => Array.from({ length: n }, () => ({ providerFamily: family, reasons }));

  test('a family that blocks a large share of probes fails; a small share warns; too few results say nothing', () => {
    const checks = replyHistoryChecks('direct', [
      ...results('microsoft', 30, ['probe_blocked']),
      ...results('microsoft', 70, ['smtp_rcpt_accepted']),
      ...results('google', 3, ['probe_blocked']),
      ...results('google', 47, ['smtp_rcpt_accepted']),
      ...results('yahoo', 19, ['probe_blocked']),
      ...results('other', 40, ['throttled']),
      ...results('other', 60, ['mailbox_not_found']),
    ], 24);
    const byId = Object.fromEntries(checks.map((c) => [c.id, c]));
    assert.equal(byId['replies:microsoft']?.status, 'fail');
    assert.match(byId['replies:microsoft']?.summary ?? '', /microsoft: 30% blocked, 0% throttled of 100 recent results/);
    assert.equal(byId['replies:google']?.status, 'warn');
    assert.equal(byId['replies:other']?.status, 'warn', '40% throttled');
    assert.equal(byId['replies:yahoo'], undefined, '19 results are too few to judge');
    assert.deepEqual(byId['replies:microsoft']?.detail, { family: 'microsoft', results: 100, blocked: 30, throttled: 0, windowHours: 24 });
  });

  test('with no live results there is nothing wrong to report', () => {
    const checks = replyHistoryChecks('direct', [{ providerFamily: null, reasons: ['no_mx_no_a'] }], 24);
    assert.deepEqual(checks.map((c) => [c.id, c.status]), [['replies', 'ok']]);
  });
});
