/** PRESEND_EGRESS: routes as JSON (or a file of it), validated at start-up, the first route's settings the probe's own. */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfig } from '../../src/config.js';

const TWO_ROUTES = JSON.stringify([
  { name: 'a', source: '127.0.0.1', helo: 'probe.presend.test' },
  { name: 'b', proxy: 'socks5://u:p%2Cw@127.0.0.1:1080', helo: 'probe10.presend.test', providers: ['microsoft'] },
]);

describe('PRESEND_EGRESS', () => {
  test('the routes, and the first route\'s HELO name, proxy and source are the probe\'s', () => {
    const c = loadConfig({ PRESEND_EGRESS: TWO_ROUTES, PRESEND_MAIL_FROM: 'probe@presend.test' });
    assert.deepEqual(c.egress, [
      { name: 'a', source: '127.0.0.1', proxy: null, heloName: 'probe.presend.test', providers: [] },
      { name: 'b', source: null, proxy: 'socks5://u:p%2Cw@127.0.0.1:1080', heloName: 'probe10.presend.test', providers: ['microsoft'] },
    ]);
    assert.deepEqual([c.heloName, c.smtpProxy, c.smtpSourceAddress], ['probe.presend.test', null, '127.0.0.1']);
  });

  test('from a file, and a route without helo takes PRESEND_HELO_NAME', () => {
    const dir = mkdtempSync(join(tmpdir(), 'presend-egress-'));
    try {
      const file = join(dir, 'egress.json');
      writeFileSync(file, JSON.stringify([{ name: 'only', source: '127.0.0.9' }]));
      const c = loadConfig({ PRESEND_EGRESS: `@${file}`, PRESEND_HELO_NAME: 'probe.presend.test' });
      assert.deepEqual(c.egress.map((r) => [r.name, r.source, r.heloName]), [['only', '127.0.0.9', 'probe.presend.test']]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('without it, the one route of PRESEND_SMTP_PROXY (or direct); none without a HELO name', () => {
    assert.deepEqual(loadConfig({ PRESEND_HELO_NAME: 'probe.presend.test' }).egress.map((r) => r.name), ['direct']);
    assert.deepEqual(loadConfig({ PRESEND_HELO_NAME: 'probe.presend.test', PRESEND_SMTP_PROXY: 'socks5://127.0.0.1:1080' }).egress.map((r) => [r.name, r.proxy]), [['proxy', 'socks5://127.0.0.1:1080']]);
    assert.deepEqual(loadConfig({}).egress, []);
  });

  for (const [why, value, extra] of [
    ['not JSON', 'a=1', {}],
    ['an empty list', '[]', {}],
    ['a bad source', '[{"name":"a","source":"nowhere","helo":"probe.presend.test"}]', {}],
    ['an unknown field', '[{"name":"a","helo":"probe.presend.test","port":25}]', {}],
    ['two routes of one name', '[{"name":"a","helo":"probe.presend.test"},{"name":"a","helo":"probe.presend.test"}]', {}],
    ['no HELO name anywhere', '[{"name":"a"}]', {}],
    ['a HELO name that is localhost', '[{"name":"a","helo":"localhost"}]', {}],
    ['a file that is not there', '@/nonexistent/egress.json', {}],
    ['PRESEND_SMTP_PROXY as well', '[{"name":"a","helo":"probe.presend.test"}]', { PRESEND_SMTP_PROXY: 'socks5://127.0.0.1:1080' }],
  ] as const) {
    test(`${why} stops start-up naming PRESEND_EGRESS`, () => {
      assert.throws(() => loadConfig({ PRESEND_EGRESS: value, ...extra }), (err: unknown) => err instanceof ConfigError && err.variable === 'PRESEND_EGRESS');
    });
  }
});
