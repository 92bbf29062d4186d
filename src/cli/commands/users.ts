/**
 * `presend users create|reset-password` (docs/design.md §7): owners who sign in to the dashboard.
 * Each prints a one-time link to set the password, to hand to the owner; the link's base is
 * PRESEND_BASE_URL (or --base-url), the address people reach this service at.
 */
import type { Command } from 'commander';
import { parseWholeNumber, runAdmin } from '../output/admin-command.js';
import { createOwner, resetPasswordLink } from '../../service/owners/owners.js';

const DB = ['--database <url>', 'store URL (default PRESEND_DATABASE_URL or sqlite:./data/presend.db)'] as const;
const BASE = ['--base-url <url>', 'where people reach this service (default PRESEND_BASE_URL or http://127.0.0.1:8080)'] as const;

interface Flags {
  database?: string;
  json?: boolean;
  baseUrl?: string;
  email: string;
}

export function register(program: Command): void {
  const users = program.command('users').description('Manage the owners who sign in to the dashboard (admin).');
  users
    .command('create')
    .description('Add an owner to an account and print a one-time link to set the password.')
    .requiredOption('--account <name>', 'account name')
    .requiredOption('--email <email>', "the owner's email (what they sign in with)")
    .option('--create-account', 'create the account first when it does not exist')
    .option('--credits <n>', 'with --create-account: credits granted to the new account', '0')
    .option(...BASE)
    .option(...DB)
    .option('--json', 'print JSON')
    .addHelpText(
      'after',
      '\nExamples:\n  $ presend users create --account acme --email ann@acme.example\n  $ presend users create --account acme --email ann@acme.example --create-account --credits 1000\n  Open the printed link to choose a password, then sign in at /dashboard.',
    )
    .action(async (flags: Flags & { account: string; createAccount?: boolean; credits: string }) =>
      runAdmin(flags, async (backend, config) => {
        const outcome = await createOwner(backend, {
          accountName: flags.account,
          email: flags.email,
          baseUrl: flags.baseUrl ?? config.baseUrl,
          ...(flags.createAccount ? { createAccount: { credits: parseWholeNumber(flags.credits, '--credits') } } : {}),
        });
        if (outcome.kind === 'refused') return outcome;
        const made = outcome.value;
        const created = made.accountCreated ? `Account ${flags.account} created. ` : '';
        return {
          text: `${created}Owner ${made.user.email} added to ${flags.account}. Set the password (the link works once, until ${made.expiresAt.toISOString()}):\n${made.link}`,
          json: { email: made.user.email, account: flags.account, accountCreated: made.accountCreated, link: made.link, expiresAt: made.expiresAt.toISOString() },
        };
      }),
    );
  users
    .command('reset-password')
    .description("Print a one-time link to choose a new password (the old one works until the link is used; using it signs the owner out everywhere).")
    .requiredOption('--email <email>', "the owner's email")
    .option(...BASE)
    .option(...DB)
    .option('--json', 'print JSON')
    .action(async (flags: Flags) =>
      runAdmin(flags, async (backend, config) => {
        const outcome = await resetPasswordLink(backend, { email: flags.email, baseUrl: flags.baseUrl ?? config.baseUrl });
        if (outcome.kind === 'refused') return outcome;
        const made = outcome.value;
        return {
          text: `New password link for ${made.user.email} (works once, until ${made.expiresAt.toISOString()}):\n${made.link}`,
          json: { email: made.user.email, link: made.link, expiresAt: made.expiresAt.toISOString() },
        };
      }),
    );
}
