/**
 * The command list. Each module in this folder defines one top-level command (named like the
 * file) and exports `register(program)`. Modules load lazily: a run of `presend verify` imports
 * only verify.ts and what it needs, not Fastify, SQLite or the engine, so caller commands start
 * fast. Help without a command, or an unknown command, loads them all so commander can list them.
 */
import type { Command } from 'commander';

type CommandModule = { register: (program: Command) => void };

const COMMANDS: Record<string, () => Promise<CommandModule>> = {
  verify: () => import('./verify.js'),
  batch: () => import('./batch.js'),
  job: () => import('./job.js'),
  results: () => import('./results.js'),
  check: () => import('./check.js'),
  mcp: () => import('./mcp.js'),
  mailworld: () => import('./mailworld.js'),
  doctor: () => import('./doctor.js'),
  serve: () => import('./serve.js'),
  worker: () => import('./worker.js'),
  accounts: () => import('./accounts.js'),
  keys: () => import('./keys.js'),
  users: () => import('./users.js'),
  credits: () => import('./credits.js'),
  lists: () => import('./lists.js'),
  migrate: () => import('./migrate.js'),
  purge: () => import('./purge.js'),
  webhooks: () => import('./webhooks.js'),
  policy: () => import('./policy.js'),
  feedback: () => import('./feedback.js'),
};

/** `args` are the user's arguments (process.argv without node and the script). */
export async function registerCommands(program: Command, args: readonly string[]): Promise<void> {
  const name = args.find((arg) => !arg.startsWith('-'));
  const only = name !== undefined ? COMMANDS[name] : undefined;
  const loaders = only ? [only] : Object.values(COMMANDS);
  const modules = await Promise.all(loaders.map((load) => load()));
  for (const module of modules) module.register(program);
}
