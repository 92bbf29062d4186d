/** Configuration is parsed once (docs/design.md §2): every setting has a default, a bad value names its variable, and nothing else reads the environment. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { hostname } from 'node:os';
import { ConfigError, loadCommandConfig, loadConfig } from '../../src/config.js';

test('an empty environment gives every setting its documented default', () => {
  const c = loadConfig({});
  assert.deepEqual(
    [c.databaseUrl, c.leaseMs, c.workerPollMs, c.workerAffinityGraceMs, c.workerParallelChunks, c.workerId, c.databasePoolSize, c.sharedPoolSize, c.mxSlotLeaseMs, c.sandboxSlowDelayMs, c.recheckDelayMs, c.sandboxRecheckDelayMs],
    ['sqlite:./data/presend.db', 60_000, 500, null, 2, hostname(), 10, 4, 15_000, null, 300_000, 2_000],
  );
});

test('worker, pool and lease settings are read from their variables', () => {
  const c = loadConfig({
    PRESEND_WORKER_ID: 'probe-a',
    PRESEND_WORKER_LEASE_MS: '1500',
    PRESEND_WORKER_POLL_MS: '50',
    PRESEND_WORKER_AFFINITY_GRACE_MS: '0',
    PRESEND_WORKER_PARALLEL_CHUNKS: '4',
    PRESEND_DATABASE_POOL_SIZE: '3',
    PRESEND_SHARED_POOL_SIZE: '2',
    PRESEND_MX_SLOT_LEASE_MS: '600',
    PRESEND_SANDBOX_SLOW_DELAY_MS: '400',
  });
  assert.deepEqual(
    [c.workerId, c.leaseMs, c.workerPollMs, c.workerAffinityGraceMs, c.workerParallelChunks, c.databasePoolSize, c.sharedPoolSize, c.mxSlotLeaseMs, c.sandboxSlowDelayMs],
    ['probe-a', 1500, 50, 0, 4, 3, 2, 600, 400],
  );
});

test('connection caps and the bounds of reading files have defaults and are read from their variables', () => {
  const d = loadConfig({});
  assert.deepEqual([d.maxConnections, d.maxConnectionsPerClient], [10_000, 256]);
  assert.deepEqual(d.tableLimits, { maxBytes: 1024 * 1024 * 1024, maxRows: 2_000_000, maxUnzippedBytes: 1024 * 1024 * 1024 });
  assert.equal(loadConfig({ PRESEND_MAX_CONNECTIONS: '100' }).maxConnectionsPerClient, 100, 'the per-client default never exceeds the total');
  assert.equal(loadConfig({ PRESEND_MAX_CONNECTIONS_PER_CLIENT: '0' }).maxConnectionsPerClient, 0, '0: no per-client cap (behind a proxy)');
  assert.equal(loadConfig({ PRESEND_LIST_MAX_ENTRIES: '3000000' }).tableLimits.maxRows, 6_000_000, 'rows follow a raised list cap');
  const c = loadConfig({ PRESEND_FILE_MAX_MB: '5', PRESEND_FILE_MAX_ROWS: '1000', PRESEND_XLSX_MAX_UNZIPPED_MB: '7' });
  assert.deepEqual(c.tableLimits, { maxBytes: 5 * 1024 * 1024, maxRows: 1000, maxUnzippedBytes: 7 * 1024 * 1024 });
});

for (const [variable, value, env] of [
  ['PRESEND_MAX_CONNECTIONS', '0', {}],
  ['PRESEND_MAX_CONNECTIONS_PER_CLIENT', '-1', {}],
  ['PRESEND_MAX_CONNECTIONS_PER_CLIENT', '200', { PRESEND_MAX_CONNECTIONS: '100' }],
  ['PRESEND_FILE_MAX_MB', '0', {}],
  ['PRESEND_FILE_MAX_ROWS', 'lots', {}],
  ['PRESEND_XLSX_MAX_UNZIPPED_MB', '1.5', {}],
] as const) {
  test(`${variable}=${value} stops start-up with an error naming ${variable}`, () => {
    assert.throws(
      () => loadConfig({ ...env, [variable]: value }),
      (err: unknown) => err instanceof ConfigError && err.variable === variable,
    );
  });
}

for (const [variable, value] of [
  ['PRESEND_DATABASE_POOL_SIZE', '0'],
  ['PRESEND_SHARED_POOL_SIZE', 'many'],
  ['PRESEND_WORKER_LEASE_MS', '5'],
  ['PRESEND_WORKER_POLL_MS', '1.5'],
  ['PRESEND_WORKER_PARALLEL_CHUNKS', '65'],
  ['PRESEND_WORKER_ID', 'two words'],
  ['PRESEND_MX_SLOT_LEASE_MS', '-1'],
  ['PRESEND_EGRESS_IP', 'probe.example.com'],
  ['PRESEND_CANARY_MX', 'mx example.com'],
  ['PRESEND_DNSBLS', 'zen.spamhaus.org,not a zone'],
] as const) {
  test(`${variable}=${value} stops start-up with an error naming ${variable}`, () => {
    assert.throws(
      () => loadConfig({ [variable]: value }),
      (err: unknown) => err instanceof ConfigError && err.variable === variable && err.message.startsWith(`${variable}:`),
    );
  });
}

test('a bad PRESEND_DATABASE_URL is named in the error without its password', () => {
  assert.throws(
    () => loadConfig({ PRESEND_DATABASE_URL: 'mysql://presend:s3cret-pass@db.internal/presend' }),
    (err: unknown) => err instanceof ConfigError && err.message.includes('mysql://presend:[redacted]@db.internal/presend') && !err.message.includes('s3cret-pass'),
  );
});

test('the prober-health settings: canary, egress address and blocklists (presend doctor)', () => {
  const defaults = loadConfig({});
  assert.deepEqual([defaults.canaryMx, defaults.egressIp, defaults.dnsbls], [null, null, ['zen.spamhaus.org', 'b.barracudacentral.org', 'bl.spamcop.net']]);
  const c = loadConfig({ PRESEND_CANARY_MX: 'mx.example.com', PRESEND_EGRESS_IP: '2001:db8::25', PRESEND_DNSBLS: ' bl.example.org., Zen.Spamhaus.org ' });
  assert.deepEqual([c.canaryMx, c.egressIp, c.dnsbls], ['mx.example.com', '2001:db8::25', ['bl.example.org', 'zen.spamhaus.org']]);
  assert.deepEqual(loadConfig({ PRESEND_DNSBLS: 'none' }).dnsbls, []);
});

test('a command-line flag is validated like the variable it stands for', () => {
  assert.equal(loadCommandConfig({ PRESEND_PORT: '9090', PRESEND_HOST: undefined }).port, 9090);
  assert.throws(() => loadCommandConfig({ PRESEND_PORT: 'eighty' }), (err: unknown) => err instanceof ConfigError && err.variable === 'PRESEND_PORT');
});

test('no module but src/config.ts reads process.env, except the caller settings through their one parser', () => {
  const root = new URL('../../src/', import.meta.url).pathname;
  const readers: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      if (!entry.isFile() || !entry.name.endsWith('.ts')) continue;
      // The CLI's caller commands hand the environment to the SDK's parser (src/client/env.ts), and only to it.
      const uses = readFileSync(path, 'utf8').replaceAll('clientOptionsFromEnv(process.env', '');
      if (uses.includes('process.env')) readers.push(path.slice(root.length));
    }
  };
  walk(root);
  assert.deepEqual(readers.sort(), ['client/env.ts', 'config.ts']);
});
