/** `presend accounts create NAME [--credits N]` (docs/design.md §3). */
import type { Command } from 'commander';
import { createAccount, setRateLimit } from '../../service/operations/admin.js';
import { parseWholeNumber, runAdmin } from '../output/admin-command.js';
import { UsageError } from '../output/exit-codes.js';

export function register(program: Command): void {
  const accounts = program.command('accounts').description('Manage accounts in the local store (admin).');
  accounts
    .command('create <name>')
    .description('Create an account, optionally with an initial credit grant.')
    .option('--credits <n>', 'initial credits', '0')
    .option('--database <url>', 'store URL (default PRESEND_DATABASE_URL or sqlite:./data/presend.db)')
    .option('--json', 'print JSON')
    .addHelpText('after', '\nExample:\n  $ presend accounts create acme --credits 1000')
    .action(async (name: string, flags: { credits: string; database?: string; json?: boolean }) =>
      runAdmin(flags, async (backend) => {
        const created = await createAccount(backend, name, parseWholeNumber(flags.credits, 'credits'));
        if (created.kind === 'refused') return created;
        const { account, balance } = created.value;
        return {
          text: `account ${account.name} created (id ${account.id}), ${balance.available} credits`,
          json: { account: { id: account.id, name: account.name, createdAt: account.createdAt }, balance },
        };
      }),
    );
  accounts
    .command('rate-limit <name>')
    .description("Override the per-key token bucket for the account's keys (default PRESEND_RATE_LIMIT_PER_SECOND / _BURST).")
    .option('--per-second <n>', 'sustained requests per second per key')
    .option('--burst <n>', 'burst size per key')
    .option('--default', 'remove the override')
    .option('--database <url>', 'store URL (default PRESEND_DATABASE_URL or sqlite:./data/presend.db)')
    .option('--json', 'print JSON')
    .addHelpText('after', '\nExample:\n  $ presend accounts rate-limit acme --per-second 100 --burst 200')
    .action(async (name: string, flags: { perSecond?: string; burst?: string; default?: boolean; database?: string; json?: boolean }) =>
      runAdmin(flags, async (backend) => {
        const perSecond = flags.default ? null : flags.perSecond === undefined ? null : parseWholeNumber(flags.perSecond, '--per-second', 1);
        const burst = flags.default ? null : flags.burst === undefined ? null : parseWholeNumber(flags.burst, '--burst', 1);
        if (!flags.default && (perSecond === null || burst === null)) throw new UsageError('give --per-second and --burst, or --default');
        const set = await setRateLimit(backend, name, perSecond, burst);
        if (set.kind === 'refused') return set;
        const a = set.value;
        const text = perSecond === null ? `${a.name}: service default rate limit` : `${a.name}: ${perSecond}/s per key, bursts of ${burst}`;
        return { text, json: { account: a.name, rateLimitPerSecond: perSecond, rateLimitBurst: burst } };
      }),
    );
}
