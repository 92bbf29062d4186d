/** `presend keys create|list|revoke` (DESIGN.md §3): a key is shown once; listings show display prefixes only. */
import type { Command } from 'commander';
import { createKey, listKeys, revokeKeys, runAdmin } from '../../service/admin.js';

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
        const { key, record } = await createKey(backend, flags.account, flags.test ? 'test' : 'live');
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
        const list = await listKeys(backend, flags.account);
        const rows = list.map((k) => ({ displayPrefix: k.displayPrefix, mode: k.mode, createdAt: k.createdAt, revokedAt: k.revokedAt }));
        const text = rows.length === 0 ? '(no keys)' : rows.map((r) => `${r.displayPrefix}…  ${r.mode}  created ${r.createdAt}${r.revokedAt ? `  revoked ${r.revokedAt}` : ''}`).join('\n');
        return { text, json: rows };
      }),
    );
  keys
    .command('revoke <keyPrefix>')
    .description('Revoke the active keys whose display prefix starts with KEY_PREFIX; they answer 401 from now on.')
    .option(...DB)
    .option('--json', 'print JSON')
    .action(async (prefix: string, flags: { database?: string; json?: boolean }) =>
      runAdmin(flags, async (backend) => {
        const revoked = await revokeKeys(backend, prefix);
        return { text: `${revoked} key(s) revoked`, json: { revoked } };
      }),
    );
}
