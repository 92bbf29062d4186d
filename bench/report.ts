/**
 * Writes BENCHMARKS.md: a header (command, date, machine), a summary of every target, and one
 * section per benchmark. Running one benchmark alone replaces only its section (and its
 * summary rows); the others keep the figures of their own last run, each section dated.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import type { Section, SummaryRow } from './section.js';
import { table } from './section.js';
import { machine } from './stats.js';

/** The paragraph under the title of BENCHMARKS.md. */
export const PREAMBLE = [
  'Written by `npm run bench` (bench/run.ts); each benchmark can run alone: `npm run bench -- engine|compare|api|batch|scale|postfix|export|lists|realmta` (postfix needs the Debian postfix package and root, realmta the real-MTA test bed of test/realmta/install.sh and root; they are skipped, with the reason, where one is missing).',
  'Every benchmark measures its baseline in the same run and reports ratios, since absolute times on a shared machine drift.',
  'These are benchmarks, not tests: CI does not run them and no test asserts a time.',
].join(' ');

const ORDER = ['engine', 'compare', 'api', 'batch', 'scale', 'postfix', 'export', 'lists', 'lists-postgres', 'realmta'];
const START = (id: string): string => `<!-- bench:${id}:start -->`;
const END = (id: string): string => `<!-- bench:${id}:end -->`;
/** The summary rows per benchmark, kept as JSON in a comment so a partial run can rewrite the table. */
const SUMMARY_DATA = /^<!-- bench-summary-data (.*) -->$/m;

const ANALYSIS_START = '<!-- analysis:start -->';
const ANALYSIS_END = '<!-- analysis:end -->';

interface Stored {
  sections: Map<string, string>;
  summary: Map<string, SummaryRow[]>;
  /** The hand-written analysis (profiles, what bounds each missed target): kept across runs. */
  analysis: string | null;
}

function readExisting(path: string): Stored {
  const stored: Stored = { sections: new Map(), summary: new Map(), analysis: null };
  if (!existsSync(path)) return stored;
  const text = readFileSync(path, 'utf8');
  const from = text.indexOf(ANALYSIS_START);
  const to = text.indexOf(ANALYSIS_END);
  if (from >= 0 && to > from) stored.analysis = text.slice(from, to + ANALYSIS_END.length);
  for (const id of ORDER) {
    const from = text.indexOf(START(id));
    const to = text.indexOf(END(id));
    if (from >= 0 && to > from) stored.sections.set(id, text.slice(from, to + END(id).length));
  }
  const data = SUMMARY_DATA.exec(text)?.[1];
  if (data) for (const [id, rows] of Object.entries(JSON.parse(data) as Record<string, SummaryRow[]>)) stored.summary.set(id, rows);
  return stored;
}

function renderSection(section: Section, command: string, date: string): string {
  return [START(section.id), `## ${section.title}`, '', `_Run ${date} with \`${command}\` on ${machine()}._`, '', section.body, END(section.id)].join('\n');
}

function summaryLine(s: SummaryRow): string {
  return `| ${s.figure} | ${s.measured} | ${s.target} | ${s.met === null ? 'not measured' : s.met ? 'met' : `**missed**${s.gap ? `: ${s.gap}` : ''}`} |`;
}

export function writeReport(path: string, fresh: readonly Section[], command: string, preamble: string): void {
  const stored = readExisting(path);
  const date = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  for (const section of fresh) {
    stored.sections.set(section.id, renderSection(section, command, date));
    stored.summary.set(section.id, section.summary);
  }
  const summaryHeader = table(['figure', 'measured', 'target', ''], []);
  const lines = [
    '# Benchmarks',
    '',
    preamble,
    '',
    `Last run: ${date}, \`${command}\`, on ${machine()}.`,
    '',
    '## Summary',
    '',
    summaryHeader,
    ...ORDER.flatMap((id) => (stored.summary.get(id) ?? []).map(summaryLine)),
    '',
    ...(stored.analysis ? [stored.analysis, ''] : []),
    ...ORDER.flatMap((id) => {
      const section = stored.sections.get(id);
      return section ? [section, ''] : [];
    }),
  ];
  lines.push(`<!-- bench-summary-data ${JSON.stringify(Object.fromEntries(stored.summary)).replaceAll('--', '\\u002d\\u002d')} -->`, '');
  writeFileSync(path, lines.join('\n'));
}
