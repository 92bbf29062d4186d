/** `presend keys create|list|revoke` (docs/design.md §3): a key is shown once; listings show display prefixes only. */
import type { Command } from 'commander';
import type { ApiKeyRecord } from '../../store/roles/key-management.js';
import { createKey, keysToRevoke, listKeys, revokeKeys } from '../../service/operations/admin.js';
import { runAdmin } from '../output/admin-command.js';
import { confirm } from '../output/confirm.js';

const DB = ['--database <url>', 'store URL (default PRESEND_DATABASE_URL or sqlite:./data/presend.db)'] as const;

export function register(program: Command): void {
  const keys = program.command('keys').description('Manage API keys in the local store (admin).');
  keys
    .command('create')
    .description('Create a key and print it once. --test makes a sandbox key (ps_test., no network, no billing).')
    .requiredOption('--account <name>', 'account name')
    .option('--test', 'sandbox key')
    .option(...DB)
    .option('--json', 'print JSON')
    .addHelpText('after', '\nExample:\n  $ presend keys create --account acme\n  Store the key now: it is not shown again.')
    .action(async (flags: { account: string; test?: boolean; database?: string; json?: boolean }) =>
      runAdmin(flags, async (backend) => {
        const created = await createKey(backend, flags.account, flags.test ? 'test' : 'live');
        if (created.kind === 'refused') return created;
        const { key, record } = created.value;
        return {
          text: `${key}\n(shown once; display prefix ${record.displayPrefix})`,
          json: { key, displayPrefix: record.displayPrefix, mode: record.mode, createdAt: record.createdAt },
        };
      }),
    );
  keys
    .command('list')
    .description('List the keys of an account by display prefix.')
    .requiredOption('--account <name>', 'account name')
    .option(...DB)
    .option('--json', 'print JSON')
    .action(async (flags: { account: string; database?: string; json?: boolean }) =>
      runAdmin(flags, async (backend) => {
        const listed = await listKeys(backend, flags.account);
        if (listed.kind === 'refused') return listed;
        const rows = listed.value.map((k) => ({ displayPrefix: k.displayPrefix, mode: k.mode, createdAt: k.createdAt, revokedAt: k.revokedAt }));
        const text = rows.length === 0 ? '(no keys)' : rows.map((r) => `${r.displayPrefix}…  ${r.mode}  created ${r.createdAt}${r.revokedAt ? `  revoked ${r.revokedAt}` : ''}`).join('\n');
        return { text, json: rows };
      }),
    );
  keys
    .command('revoke <keyPrefix>')
    .description("Revoke an account's active keys whose display prefix starts with KEY_PREFIX; they answer 401 from now on.")
    .requiredOption('--account <name>', 'the account whose keys to revoke (keys of other accounts are never touched)')
    .option('--yes', 'do not ask for confirmation (needed when not run in a terminal)')
    .option(...DB)
    .option('--json', 'print JSON')
    .addHelpText(
      'after',
      `
Example:
  $ presend keys revoke ps_live.AbC123 --account acme
  $ presend keys revoke ps_live.AbC123 --account acme --yes     # scripts

Lists the keys that would be revoked and asks before revoking. Without a terminal it refuses
unless --yes is given. Exit codes: 0 revoked, 1 nothing revoked (declined, or no such key),
2 usage (no confirmation possible without --yes, bad prefix).`,
    )
    .action(async (prefix: string, flags: { account: string; yes?: boolean; database?: string; json?: boolean }) =>
      runAdmin(flags, async (backend) => {
        const found = await keysToRevoke(backend, flags.account, prefix);
        if (found.kind === 'refused') return found;
        const keys = found.value;
        process.stderr.write(`${describeKeys(keys, flags.account)}\n`);
        if (!flags.yes) {
          const these = keys.length === 1 ? 'this key' : `these ${keys.length} keys`;
          await confirm(`Revoke ${these}? They stop working at once.`, { doing: 'revoking', past: 'revoked' });
        }
        const revoked = await revokeKeys(backend, keys);
        return { text: `${revoked} key${revoked === 1 ? '' : 's'} revoked`, json: { revoked, keys: keys.map((k) => k.displayPrefix) } };
      }),
    );
}

function describeKeys(keys: readonly ApiKeyRecord[], account: string): string {
  const lines = keys.map((k) => `  ${k.displayPrefix}…  ${k.mode}  created ${k.createdAt}`);
  return `${keys.length === 1 ? '1 key' : `${keys.length} keys`} of account "${account}" to revoke:\n${lines.join('\n')}`;
}
