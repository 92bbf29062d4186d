/**
 * `presend feedback import|show|forget|window|token` (docs/feedback.md): an account's send
 * feedback in the local store. `import` reads bounce messages (RFC 3464 DSNs in an .eml, an mbox or
 * a Maildir) or the plain CSV (`email,event,date[,diagnostic]`), in chunks that are each one
 * transaction: an import stopped half-way can be run again and adds only what is missing.
 */
import type { Command } from 'commander';
import { parseAddress } from '../../core/syntax/address.js';
import { account, refused } from '../../service/operations/admin.js';
import { formatOf, importFeedback, piecesOf } from '../../service/feedback/feedback-import.js';
import { withLeaseKeeper } from '../../service/leases/lease-keeper.js';
import { silentLogger } from '../../logger.js';
import type { FeedbackFileFormat } from '../../service/feedback/feedback-import.js';
import { createSourceToken, isWebhookSource, verifyKeyProblem, WEBHOOK_SOURCES } from '../../service/feedback/source-tokens.js';
import { parseWholeNumber, runAdmin } from '../output/admin-command.js';
import type { AdminOutput } from '../output/admin-command.js';
import type { Backend } from '../../store/backend.js';
import { EXIT } from '../output/exit-codes.js';

const DB = ['--database <url>', 'store URL (default PRESEND_DATABASE_URL or sqlite:./data/presend.db)'] as const;
const ACCOUNT = ['--account <name>', 'account name'] as const;

type Flags = { account: string; database?: string; json?: boolean };

/** An address command: the account and the address as checks normalise it, or why not. */
function onAddress(email: string, flags: Flags, fn: (backend: Backend, accountId: string, address: string) => Promise<AdminOutput>): Promise<void> {
  return runAdmin(flags, async (backend) => {
    const a = await account(backend, flags.account);
    if (a.kind === 'refused') return a;
    const parsed = parseAddress(email);
    if (!parsed.ok) return refused('invalid_argument', `not an email address: ${email}`);
    return fn(backend, a.value.id, parsed.address.normalized);
  });
}

export function register(program: Command): void {
  const feedback = program.command('feedback').description("Feed an account's own bounces, deliveries and complaints into its checks (admin; docs/feedback.md).");
  feedback
    .command('import <path>')
    .description('Import bounce messages (.eml, mbox or a Maildir folder of RFC 3464 reports) or a CSV of events (email,event,date[,diagnostic]).')
    .requiredOption(...ACCOUNT)
    .option('--format <format>', 'csv or dsn (default: csv for a .csv/.tsv/.txt file, else dsn)')
    .option(...DB)
    .option('--json', 'print JSON')
    .addHelpText(
      'after',
      `
Events of the CSV: hard_bounce, soft_bounce, bounce (hard or soft from the diagnostic), delivery, complaint.
Example:
  $ presend feedback import bounces.mbox --account acme
  $ presend feedback import events.csv --account acme
Running an import again records only the events it did not record before.`,
    )
    .action(async (path: string, flags: Flags & { format?: string }) =>
      runAdmin(flags, async (backend, config) => {
        const a = await account(backend, flags.account);
        if (a.kind === 'refused') return a;
        if (flags.format !== undefined && flags.format !== 'csv' && flags.format !== 'dsn') return refused('invalid_argument', '--format is csv or dsn');
        let format: FeedbackFileFormat;
        try {
          format = (flags.format as FeedbackFileFormat | undefined) ?? (await formatOf(path));
        } catch {
          return refused('unreadable_input', `cannot read ${path}`);
        }
        // Imports an earlier run left behind (killed mid-way) end failed now; this one is leased while it runs.
        await backend.leases.endLapsed('feedbackImport', new Date());
        const report = await withLeaseKeeper({ leases: backend.leases, leaseMs: config.leaseMs, log: silentLogger }, (keeper) =>
          importFeedback({ feedback: backend.feedback, accountId: a.value.id, source: format, name: path, pieces: piecesOf(path, format), now: () => new Date(), eventsRetentionDays: config.feedbackEventsRetentionDays, keeper }),
        );
        const i = report.import;
        const lines = [
          `${i.events} event(s) recorded, ${i.duplicates} already known, ${i.rejected} not taken (${format}, import ${i.id})`,
          ...report.problems.map((p) => `  ${p.where}: ${p.problem}`),
          ...(i.rejected > report.problems.length ? [`  … and ${i.rejected - report.problems.length} more`] : []),
          ...(report.stoppedBy ? [`stopped: ${report.stoppedBy} (the events before it are recorded)`] : []),
        ];
        if (report.stoppedBy) process.exitCode = EXIT.badInput;
        return { text: lines.join('\n'), json: { import: i, problems: report.problems, stoppedBy: report.stoppedBy } };
      }),
    );
  feedback
    .command('show <email>')
    .description("An address's history in the account: its checks, its feedback and the latest events.")
    .requiredOption(...ACCOUNT)
    .option(...DB)
    .option('--json', 'print JSON')
    .action(async (email: string, flags: Flags) =>
      onAddress(email, flags, async (backend, accountId, address) => {
        const record = await backend.feedback.address(accountId, address);
        if (!record.history) return { text: `no history for ${address}`, json: record };
        const h = record.history;
        const lines = [
          `${address}: ${h.checks} check(s)${h.lastVerdict ? `, last verdict ${h.lastVerdict}` : ''}`,
          h.lastHardBounce ? `  last hard bounce ${h.lastHardBounce.at} (${h.lastHardBounce.code ?? 'no code'}, ${h.lastHardBounce.source})` : '',
          h.softBounces ? `  ${h.softBounces.count} soft bounce(s), last ${h.softBounces.at}` : '',
          h.lastDelivery ? `  last delivery ${h.lastDelivery.at} (${h.lastDelivery.source})` : '',
          h.complaints ? `  ${h.complaints.count} complaint(s), last ${h.complaints.at}` : '',
          ...record.events.map((e) => `  ${e.at}  ${e.kind}${e.code ? ` ${e.code}` : ''}  (${e.source})`),
        ].filter((l) => l !== '');
        return { text: lines.join('\n'), json: record };
      }),
    );
  feedback
    .command('forget <email>')
    .description('Remove an address from the account: its checks history, its feedback and its events (a person asked to be forgotten).')
    .requiredOption(...ACCOUNT)
    .option(...DB)
    .option('--json', 'print JSON')
    .action(async (email: string, flags: Flags) =>
      onAddress(email, flags, async (backend, accountId, address) => {
        const removed = await backend.feedback.forget(accountId, address);
        return { text: removed ? `${address} forgotten` : `nothing was kept about ${address}`, json: { email: address, removed } };
      }),
    );
  feedback
    .command('window <days>')
    .description('How many days a hard bounce (and a delivery) counts for the account\'s checks (default 180).')
    .requiredOption(...ACCOUNT)
    .option(...DB)
    .option('--json', 'print JSON')
    .action(async (days: string, flags: Flags) =>
      runAdmin(flags, async (backend) => {
        const n = parseWholeNumber(days, 'days', 1);
        const a = await account(backend, flags.account);
        if (a.kind === 'refused') return a;
        await backend.feedback.setWindow(a.value.id, n);
        return { text: `feedback window of ${flags.account}: ${n} day(s)`, json: { account: flags.account, windowDays: n } };
      }),
    );
  feedback
    .command('token <source>')
    .description(`Make the inbound webhook token of a source (${WEBHOOK_SOURCES.join(', ')}) and print it once; it replaces the one before.`)
    .requiredOption(...ACCOUNT)
    .option(...DB)
    .option('--json', 'print JSON')
    .action(async (source: string, flags: Flags) =>
      runAdmin(flags, async (backend) => {
        if (!isWebhookSource(source)) return refused('invalid_argument', `the source is one of ${WEBHOOK_SOURCES.join(', ')}`);
        const a = await account(backend, flags.account);
        if (a.kind === 'refused') return a;
        const token = await createSourceToken(backend.feedback, a.value.id, source, new Date());
        const path = `/feedback/${source}/${token}`;
        return { text: `${path}\n(shown once: post the provider's events to your server's base URL + this path)`, json: { source, token, path } };
      }),
    );
  feedback
    .command('key <source> <key>')
    .description("Set what verifies a source's deliveries: SendGrid's verification key, Mailgun's webhook signing key, Postmark's user:password, or the SNS topic ARN of SES.")
    .requiredOption(...ACCOUNT)
    .option(...DB)
    .option('--json', 'print JSON')
    .action(async (source: string, key: string, flags: Flags) =>
      runAdmin(flags, async (backend) => {
        if (!isWebhookSource(source)) return refused('invalid_argument', `the source is one of ${WEBHOOK_SOURCES.join(', ')}`);
        const problem = verifyKeyProblem(source, key);
        if (problem) return refused('invalid_argument', problem);
        const a = await account(backend, flags.account);
        if (a.kind === 'refused') return a;
        await backend.feedback.setVerifyKey({ accountId: a.value.id, source, verifyKey: key.trim(), now: new Date() });
        return { text: `the ${source} deliveries of ${flags.account} are verified with the key given`, json: { source, set: true } };
      }),
    );
}
