#!/usr/bin/env node
/**
 * The `presend` command line. Each command lives in src/cli/commands/<name>.ts and exports
 * `register(program)`; this file only assembles them, so adding a command is one line here.
 */
import { Command } from 'commander';
import { registerCommands } from './commands/index.js';

const program = new Command();
program
  .name('presend')
  .description('Presend — email verification before you send.\nRun `presend <command> --help` for details and examples.')
  .version('0.1.0')
  .showHelpAfterError()
  .configureOutput({ outputError: (text, write) => write(text) });
program.exitOverride((err) => {
  // Asked-for help (--help, `help`) and --version exit 0. Help shown because something is
  // missing (`presend` alone, `presend keys` without a subcommand) and commander's own usage
  // errors exit 2, the usage code (docs/cli.md).
  if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version') process.exit(0);
  if (err.code === 'commander.help' && err.exitCode === 0) process.exit(0);
  process.exit(2);
});

await registerCommands(program, process.argv.slice(2));

await program.parseAsync(process.argv);
