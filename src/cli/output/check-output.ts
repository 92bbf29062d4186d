/**
 * How `presend check` shows results while the engine is still at work: each as soon as it is
 * final. A table streams its rows (widths fixed up front: the addresses are known, and a
 * verdict or decision is at most as long as its longest name); `--jsonl` writes one JSON line
 * per address as it is known; `--json` keeps its one array, in the order given, at the end.
 * A run that takes long also moves the command's progress bar (progress.ts, the one `presend
 * batch` uses): on a terminal only.
 */
import type { EngineResult } from '../../core/index.js';
import { PUBLIC_VERDICTS } from '../../core/types.js';
import type { Progress } from './progress.js';
import { evidenceText } from './evidence-text.js';

export type CheckFormat = 'table' | 'json' | 'jsonl';

const HEADERS = ['address', 'verdict', 'decision', 'confidence', 'reasons'] as const;
/** Longest decision name (PreSendDecision). */
const DECISION_WIDTH = 'send_with_caution'.length;
/** The verdict column also shows `(recheck_scheduled)` for an address its host kept unasked. */
const VERDICT_WIDTH = Math.max('(recheck_scheduled)'.length, ...PUBLIC_VERDICTS.map((v) => v.length));
/** After this long the progress bar shows (a short run would only flicker). */
const SHOW_PROGRESS_AFTER_MS = 1000;

function cells(result: EngineResult): string[] {
  const e = result.envelope;
  return [
    result.email,
    e.verdict ?? (e.status === 'completed' ? '-' : `(${e.status})`),
    e.decision ?? '-',
    e.confidence === null ? '-' : e.confidence.toFixed(2),
    [...e.reasons, ...(result.didYouMean ? [`did you mean ${result.didYouMean}?`] : [])].join(', '),
  ];
}

export interface CheckOutput {
  /** One result, final. */
  add(result: EngineResult): void;
  /** Every result is in. */
  end(): void;
}

export function createCheckOutput(
  format: CheckFormat,
  addresses: readonly string[],
  out: NodeJS.WritableStream,
  progress: Progress,
  now: () => number = Date.now,
  /** `--explain`: the table shows each result's evidence under its row (the JSON formats carry it as the result's `evidence` field). */
  explain = false,
): CheckOutput {
  const widths = [Math.max(HEADERS[0].length, ...addresses.map((a) => a.length)), VERDICT_WIDTH, DECISION_WIDTH, HEADERS[3].length];
  const line = (row: readonly string[]): string => row.map((text, i) => (i < widths.length ? text.padEnd(widths[i] ?? 0) : text)).join('  ').trimEnd() + '\n';
  const results = new Map<string, EngineResult>();
  const started = now();
  let done = 0;
  const emit = (text: string): void => {
    // A row written on the terminal the bar is drawn on: the bar's line is erased first, and
    // the bar drawn again below the row by the next update.
    progress.clear();
    out.write(text);
  };
  if (format === 'table') emit(line(HEADERS) + line(widths.map((w) => '-'.repeat(w)).concat('-'.repeat(HEADERS[4].length))));
  return {
    add(result) {
      done++;
      if (format === 'table') emit(line(cells(result)) + (explain && result.evidence ? evidenceText(result.evidence) : ''));
      else if (format === 'jsonl') emit(`${JSON.stringify(result)}\n`);
      else results.set(result.input, result);
      if (progress.active || now() - started >= SHOW_PROGRESS_AFTER_MS) progress.update('checking', done, addresses.length);
    },
    end() {
      progress.stop();
      if (format === 'json') out.write(`${JSON.stringify(addresses.flatMap((a) => results.get(a) ?? []), null, 2)}\n`);
    },
  };
}
