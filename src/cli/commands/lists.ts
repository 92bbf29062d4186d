/**
 * `presend lists import|list|delete` (docs/design.md §3). `import FILE --account NAME [--name
 * LABEL]` prints the list id when ready. The file is read like `presend batch FILE` reads it (src/files): CSV, TSV,
 * semicolon-separated or XLSX, the address column found by its header or its contents, lines
 * counted as in the file; invalid addresses are stored and reported with their line.
 */
import type { Command } from 'commander';
import { AddressRows, listEntries, openTable, type InvalidRow } from '../../files/index.js';
import { deleteList, importList, listLists, listToDelete } from '../../service/operations/admin.js';
import { withLeaseKeeper } from '../../service/leases/lease-keeper.js';
import { silentLogger } from '../../logger.js';
import { runAdmin } from '../output/admin-command.js';
import { confirm } from '../output/confirm.js';
import { addTableOptions, tableOptions, type TableFlags } from '../file-batch/input.js';

/** Invalid rows reported in full (all are counted). */
const INVALID_KEPT = 1_000;

interface ImportFlags extends TableFlags {
  account: string;
  name?: string;
  database?: string;
  json?: boolean;
}

export function register(program: Command): void {
  const lists = program.command('lists').description('Manage stored lists (admin); verify them with POST /v1/requests {"listId": …}.');
  const command = lists
    .command('import <file>')
    .description('Import a CSV, TSV or XLSX file as a list of the account (the address column is found as `presend batch` finds it).')
    .requiredOption('--account <name>', 'account name')
    .option('--name <label>', 'a label for the list');
  addTableOptions(command)
    .option('--database <url>', 'store URL (default PRESEND_DATABASE_URL or sqlite:./data/presend.db)')
    .option('--json', 'print JSON')
    .addHelpText(
      'after',
      `
Examples:
  $ presend lists import customers.csv --account acme --name "Q3 customers"
  $ presend lists import export.xlsx --account acme --column "Work Email"

Blank rows and rows without an address are skipped; invalid addresses are stored (verifying
the list marks them rejected) and listed here with their line. Exit codes: 0 imported, 1 other
error, 2 usage or file not found, 6 the file cannot be read as a table.`,
    )
    .action(async (file: string, flags: ImportFlags) =>
      runAdmin(flags, async (backend, config) => {
        // Imports an earlier run left behind (killed mid-way) end failed now, so none stays `importing`.
        await backend.leases.endLapsed('listImport', new Date());
        // A missing file or a bad flag is a usage error (2), a file that is no table 6 (exitCodeFor).
        const table = await openTable({ path: file }, tableOptions(flags));
        const classifier = new AddressRows(table.layout.emailColumn);
        const invalid: InvalidRow[] = [];
        let withoutAddress = 0;
        let invalidRows = 0;
        const entries = listEntries(table.rows, classifier, (bad) => {
          if (bad.kind === 'no_address') withoutAddress += 1;
          else {
            // The first ones in full, the rest counted: memory stays bounded however many there are.
            invalidRows += 1;
            if (invalid.length < INVALID_KEPT) invalid.push({ line: bad.line, email: bad.given, error: bad.problem });
          }
        });
        const imported = await withLeaseKeeper({ leases: backend.leases, leaseMs: config.leaseMs, log: silentLogger }, (keeper) =>
          importList(backend, flags.account, entries, flags.name ?? null, { maxEntries: config.listMaxEntries, keeper }),
        );
        if (imported.kind === 'refused') return imported;
        const list = imported.value;
        const { counts } = classifier;
        const notes = [
          `${list.entries} entries from ${file} (addresses in ${table.layout.emailColumnLabel}); ${counts.duplicates} duplicates, ${invalidRows} invalid, ${counts.blank} blank rows and ${withoutAddress} rows without an address`,
          ...invalid.slice(0, 20).map((bad) => `  line ${bad.line}: ${JSON.stringify(bad.email)} — ${bad.error} (stored; verifying the list marks it rejected)`),
          ...(invalidRows > 20 ? [`  … and ${invalidRows - 20} more invalid addresses`] : []),
        ];
        process.stderr.write(`${notes.join('\n')}\n`);
        return {
          text: list.id,
          json: { id: list.id, name: list.name, state: list.state, entries: list.entries, counts: { ...counts, withoutAddress }, invalid },
        };
      }),
    );

  lists
    .command('list')
    .description('List the lists of an account, newest first, with their state and entries.')
    .requiredOption('--account <name>', 'account name')
    .option('--database <url>', 'store URL (default PRESEND_DATABASE_URL or sqlite:./data/presend.db)')
    .option('--json', 'print JSON')
    .addHelpText('after', '\nExample:\n  $ presend lists list --account acme\n\nAn import whose process stopped (killed, crashed) is shown failed.')
    .action(async (flags: { account: string; database?: string; json?: boolean }) =>
      runAdmin(flags, async (backend) => {
        const listed = await listLists(backend, flags.account);
        if (listed.kind === 'refused') return listed;
        const rows = listed.value.map((l) => ({ id: l.id, name: l.name, state: l.state, entries: l.entries, createdAt: l.createdAt, error: l.file?.error ?? null }));
        const text =
          rows.length === 0
            ? '(no lists)'
            : rows.map((r) => `${r.id}  ${r.state.padEnd(9)}  ${String(r.entries).padStart(9)} entries  created ${r.createdAt}${r.name ? `  ${JSON.stringify(r.name)}` : ''}`).join('\n');
        return { text, json: rows };
      }),
    );
  lists
    .command('delete <listId>')
    .description('Delete a list of the account with its entries (batches already made from it keep their items).')
    .requiredOption('--account <name>', 'the account whose list to delete (lists of other accounts are never touched)')
    .option('--yes', 'do not ask for confirmation (needed when not run in a terminal)')
    .option('--database <url>', 'store URL (default PRESEND_DATABASE_URL or sqlite:./data/presend.db)')
    .option('--json', 'print JSON')
    .addHelpText(
      'after',
      `
Example:
  $ presend lists delete 0b6c…-… --account acme
  $ presend lists delete 0b6c…-… --account acme --yes     # scripts

Shows the list and asks before deleting it. Without a terminal it refuses unless --yes is
given. Exit codes: 0 deleted, 1 nothing deleted (declined, or no such list), 2 usage.`,
    )
    .action(async (listId: string, flags: { account: string; yes?: boolean; database?: string; json?: boolean }) =>
      runAdmin(flags, async (backend) => {
        const found = await listToDelete(backend, flags.account, listId);
        if (found.kind === 'refused') return found;
        const list = found.value;
        process.stderr.write(`list ${list.id} of account "${flags.account}" to delete: ${list.state}, ${list.entries} entries${list.name ? `, ${JSON.stringify(list.name)}` : ''}\n`);
        if (!flags.yes) await confirm('Delete this list and its entries?', { doing: 'deleting', past: 'deleted' });
        const deleted = await deleteList(backend, list);
        return { text: deleted ? `list ${list.id} deleted` : `list ${list.id} was already gone`, json: { deleted, id: list.id } };
      }),
    );
}
