/**
 * Reading the examples out of the documentation: console sessions in fenced code blocks
 * (`$ presend …` followed by its output), aligned text tables, and Markdown tables. The
 * tests then run the commands and compare, so the docs cannot drift from what Presend does.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../client/live-service.js';

export interface ConsoleExample {
  file: string;
  /** The arguments after `presend` (or `npx --no-install presend`). */
  args: string[];
  /** The lines printed under the command, up to the next `$` line or the end of the block. */
  output: string[];
}

export function docFiles(): string[] {
  return ['README.md', ...readdirSync(join(REPO_ROOT, 'docs')).filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`)];
}

export function readDoc(file: string): string {
  return readFileSync(join(REPO_ROOT, file), 'utf8');
}

function codeBlocks(text: string): string[] {
  return [...text.matchAll(/^```[a-z]*\n([\s\S]*?)^```/gm)].map((match) => match[1] ?? '');
}

export function consoleExamples(file: string): ConsoleExample[] {
  const examples: ConsoleExample[] = [];
  for (const block of codeBlocks(readDoc(file))) {
    let current: ConsoleExample | null = null;
    for (const line of block.split('\n')) {
      const command = /^\$ (?:npx --no-install )?presend (.*)$/.exec(line);
      if (command) {
        current = { file, args: (command[1] ?? '').split(/\s+/).filter(Boolean), output: [] };
        examples.push(current);
      } else if (line.startsWith('$ ')) {
        current = null;
      } else if (current && line !== '') {
        current.output.push(line);
      }
    }
  }
  return examples;
}

/** `$ cat NAME` in a block: the lines shown as the file's content. */
export function shownFile(file: string, name: string): string[] {
  for (const block of codeBlocks(readDoc(file))) {
    const lines = block.split('\n');
    const at = lines.indexOf(`$ cat ${name}`);
    if (at !== -1) return lines.slice(at + 1).filter((line) => line !== '' && !line.startsWith('$ '));
  }
  throw new Error(`${file} shows no $ cat ${name}`);
}

/** An aligned text table (header, dashes, rows) as records by header name. */
export function textTable(lines: readonly string[]): Record<string, string>[] {
  const dashes = lines.findIndex((line) => /^-+(\s+-+)*$/.test(line.trim()));
  if (dashes < 1) return [];
  const header = lines[dashes - 1] as string;
  const starts = [...(lines[dashes] as string).matchAll(/-+/g)].map((match) => match.index ?? 0);
  const cut = (line: string): string[] => starts.map((start, i) => line.slice(start, starts[i + 1] ?? line.length).trim());
  const names = cut(header);
  return lines.slice(dashes + 1).map((line) => Object.fromEntries(cut(line).map((cell, i) => [names[i] ?? `${i}`, cell])));
}

/** The rows of the Markdown table whose header row starts with `firstHeader`. */
export function markdownTable(file: string, firstHeader: string): string[][] {
  const lines = readDoc(file).split('\n');
  const at = lines.findIndex((line) => line.startsWith(`| ${firstHeader} |`));
  if (at === -1) throw new Error(`${file} has no table headed "${firstHeader}"`);
  const rows: string[][] = [];
  for (const line of lines.slice(at + 2)) {
    if (!line.startsWith('|')) break;
    rows.push(line.split('|').slice(1, -1).map((cell) => cell.trim()));
  }
  return rows;
}
