import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { heloNameProblem } from '../../src/core/helo-name.js';
import { ConfigError, loadConfig } from '../../src/config.js';

const REFUSED: Array<[name: string, named: RegExp]> = [
  ['localhost', /never "localhost"/],
  ['LOCALHOST', /never "localhost"/],
  ['localhost.', /never "localhost"/],
  ['LocalHost.', /never "localhost"/],
  ['foo.localhost', /never "localhost"/],
  ['probe.localhost.', /never "localhost"/],
  ['localhost.localdomain', /never "localhost"/],
  ['printer.local', /never "localhost"/],
  ['probe.invalid', /never "localhost"/],
  ['192.0.2.10', /IP address/],
  ['[192.0.2.10]', /IP address/],
  ['2001:db8::1', /IP address/],
  ['[2001:db8::1]', /IP address/],
  ['[IPv6:2001:db8::1]', /IP address/],
  ['::1', /IP address/],
  ['127.1', /IP address/],
  ['probe', /not fully qualified/],
  ['probe.example.com.', /ends with a dot/],
  ['probe_1.example.com', /not a host name/],
  ['-probe.example.com', /not a host name/],
  ['probe..example.com', /not a host name/],
  [`${'a'.repeat(64)}.example.com`, /not a host name/],
];

describe('PRESEND_HELO_NAME', () => {
  for (const [name, named] of REFUSED) {
    test(`"${name.length > 40 ? `${name.slice(0, 40)}…` : name}" is refused: ${named.source}`, () => {
      assert.match(heloNameProblem(name) ?? '', named);
    });
  }

  for (const name of ['probe.presend.test', 'mx-out-1.mail.example.com', 'PROBE.Example.COM', 'xn--bcher-kva.example']) {
    test(`"${name}" is accepted`, () => assert.equal(heloNameProblem(name), null));
  }

  test('config refuses a bad HELO name at start-up, naming the variable', () => {
    assert.throws(
      () => loadConfig({ PRESEND_HELO_NAME: 'LOCALHOST.' }),
      (err: unknown) => err instanceof ConfigError && err.variable === 'PRESEND_HELO_NAME' && /localhost/.test(err.message),
    );
    assert.throws(() => loadConfig({ PRESEND_HELO_NAME: '[203.0.113.7]' }), (err: unknown) => err instanceof ConfigError && /IP address/.test(err.message));
    assert.equal(loadConfig({ PRESEND_HELO_NAME: ' probe.example.com ' }).heloName, 'probe.example.com');
  });

  test('config reads PRESEND_ALLOW_PRIVATE_MX as false, loopback or true, and names a bad value', () => {
    assert.equal(loadConfig({}).allowPrivateMx, false);
    assert.equal(loadConfig({ PRESEND_ALLOW_PRIVATE_MX: 'loopback' }).allowPrivateMx, 'loopback');
    assert.equal(loadConfig({ PRESEND_ALLOW_PRIVATE_MX: 'true' }).allowPrivateMx, true);
    assert.throws(
      () => loadConfig({ PRESEND_ALLOW_PRIVATE_MX: 'lan' }),
      (err: unknown) => err instanceof ConfigError && err.message === 'PRESEND_ALLOW_PRIVATE_MX: expected false, loopback or true, got "lan"',
    );
  });
});
