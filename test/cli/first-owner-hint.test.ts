/** The first-owner hint of `presend serve` (src/cli/output/first-owner-hint.ts) names what `users create` cannot guess. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { resolve } from 'node:path';
import { firstOwnerHint } from '../../src/cli/output/first-owner-hint.js';

const command = (hint: string): string => /\n {2}(npx [^\n]+)\n/.exec(hint)?.[1] ?? '';

test('with the defaults the hint is the plain command, run through the local bin', () => {
  const hint = firstOwnerHint({ databaseUrl: 'sqlite:./data/presend.db', baseUrl: 'http://127.0.0.1:8080', serverUrl: 'http://127.0.0.1:8080' });
  assert.equal(command(hint), 'npx --no-install presend users create --account acme --email you@example.com --create-account --credits 1000');
  assert.match(hint, /Dashboard: http:\/\/127\.0\.0\.1:8080\/dashboard/);
});

test('another store or address is spelled out: a relative SQLite path made absolute, a PostgreSQL password never printed', () => {
  const relative = firstOwnerHint({ databaseUrl: 'sqlite:./other/p.db', baseUrl: 'http://127.0.0.1:8080', serverUrl: 'http://127.0.0.1:9090' });
  assert.match(command(relative), new RegExp(`--base-url http://127\\.0\\.0\\.1:9090 --database sqlite:${resolve('other/p.db').replace(/[.]/g, '\\.')}$`));
  const named = firstOwnerHint({ databaseUrl: 'postgres://presend:s3cret@db.internal:5432/presend', baseUrl: 'https://verify.example.com', serverUrl: 'http://0.0.0.0:8080' });
  assert.match(command(named), /--base-url https:\/\/verify\.example\.com --database postgres:\/\/presend:PASSWORD@db\.internal:5432\/presend$/);
  assert.ok(!named.includes('s3cret'));
  assert.match(named, /put the database password in place of PASSWORD/);
  const spaced = firstOwnerHint({ databaseUrl: "sqlite:/tmp/my store's/p.db", baseUrl: 'http://127.0.0.1:8080', serverUrl: 'http://127.0.0.1:8080' });
  assert.match(command(spaced), /--database 'sqlite:\/tmp\/my store'\\''s\/p\.db'$/);
  const memory = firstOwnerHint({ databaseUrl: 'sqlite::memory:', baseUrl: 'http://127.0.0.1:8080', serverUrl: 'http://127.0.0.1:8080' });
  assert.match(memory, /keeps its store in memory: no other process can add an owner/);
});
