/**
 * The command `presend serve` prints while no owner can sign in yet. It must reach the store
 * and the address of *this* server: run in another terminal, `users create` knows neither the
 * server's flags nor, often, its environment, so a database or a base URL other than the
 * defaults is spelled out (a relative SQLite path made absolute, so the folder it is run from
 * does not matter). The local bin is named (`npx --no-install presend`): a bare `npx presend`
 * outside the checkout would fetch whatever registry package has that name.
 */
import { resolve } from 'node:path';
import { defaultConfig } from '../../config.js';

const quoted = (value: string): string => (/^[\w@%+=:,./-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`);

/** A database URL as another process in another folder opens it; a password is not printed. */
function portableDatabaseUrl(url: string): { url: string; note: string | null } {
  if (url.startsWith('sqlite:')) {
    const path = url.slice('sqlite:'.length);
    return { url: path === ':memory:' ? url : `sqlite:${resolve(path)}`, note: null };
  }
  try {
    const parsed = new URL(url);
    if (parsed.password === '') return { url, note: null };
    parsed.password = 'PASSWORD';
    return { url: parsed.toString(), note: 'put the database password in place of PASSWORD' };
  } catch {
    return { url, note: null };
  }
}

export function firstOwnerHint(input: { databaseUrl: string; baseUrl: string; serverUrl: string }): string {
  const defaults = defaultConfig();
  // An operator who set PRESEND_BASE_URL named the address people use; otherwise it is where this server listens.
  const reach = input.baseUrl !== defaults.baseUrl ? input.baseUrl : input.serverUrl;
  const flags: string[] = [];
  const notes: string[] = [];
  if (reach !== defaults.baseUrl) flags.push(`--base-url ${quoted(reach)}`);
  if (input.databaseUrl === 'sqlite::memory:') {
    notes.push('this server keeps its store in memory: no other process can add an owner to it');
  } else if (input.databaseUrl !== defaults.databaseUrl) {
    const db = portableDatabaseUrl(input.databaseUrl);
    flags.push(`--database ${quoted(db.url)}`);
    if (db.note) notes.push(db.note);
  }
  const command = ['npx --no-install presend users create --account acme --email you@example.com --create-account --credits 1000', ...flags].join(' ');
  return (
    `\nDashboard: ${reach}/dashboard — no owner yet. Create the first one (prints a link to set the password):\n` +
    `  ${command}\n` +
    notes.map((n) => `  (${n})\n`).join('') +
    '\n'
  );
}
