/**
 * `presend check --explain`: each result's evidence (docs/evidence.md) as indented text under
 * its row, in the dashboard's words (src/dashboard/evidence-words.ts: one wording for both).
 */
import type { Evidence } from '../../core/evidence/evidence.js';
import { durationText, evidenceSentences, lineTook, lineWhen } from '../../dashboard/evidence-words.js';

const DIR_MARK = { C: '>', S: '<', '-': '·' } as const;

export function evidenceText(e: Evidence): string {
  const lines = [`  how it was decided (${durationText(e.durationMs)}):`, ...evidenceSentences(e).map((s) => `    - ${s}`)];
  if (e.transcript.length > 0) {
    lines.push('    conversation (> sent, < replied, · on the way):');
    const when = Math.max(...e.transcript.map((l) => lineWhen(l).length));
    for (const l of e.transcript) lines.push(`      ${lineWhen(l).padStart(when)}  ${l.host}  ${DIR_MARK[l.dir]} ${l.text}${lineTook(l)}`);
    if (e.dropped > 0) lines.push(`      (${e.dropped} further line(s) not kept)`);
  }
  return `${lines.join('\n')}\n`;
}
