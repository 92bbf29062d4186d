/** Asks before a destructive admin command (`keys revoke`, `lists delete`); `--yes` skips the question. */
import { createInterface } from 'node:readline/promises';
import { UsageError } from './exit-codes.js';

/**
 * Resolves when the person typed "yes". Otherwise throws `nothing <past>` (e.g. "nothing
 * revoked"); without a terminal, a usage error saying `not <doing> without confirmation`.
 */
export async function confirm(question: string, words: { doing: string; past: string }): Promise<void> {
  if (!process.stdin.isTTY) {
    throw new UsageError(`not ${words.doing} without confirmation: run this in a terminal to be asked, or pass --yes`);
  }
  const prompt = createInterface({ input: process.stdin, output: process.stderr });
  try {
    const answer = await prompt.question(`${question} Type "yes" to go on: `);
    if (answer.trim().toLowerCase() !== 'yes') throw new Error(`nothing ${words.past}`);
  } finally {
    prompt.close();
  }
}
