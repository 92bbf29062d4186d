/**
 * A check's evidence (docs/evidence.md) in sentences, beside explain.ts's words for reasons and
 * decisions: the dashboard's timeline (evidence-timeline.ts) and `presend check --explain`
 * (src/cli/output/evidence-text.ts) say the same thing the same way. Plain text: each caller
 * escapes or prints it.
 */
import type { Evidence, EvidenceFact, EvidenceLine } from '../core/evidence/evidence.js';
import { decisionText, reasonText } from './explain.js';

/** "12 ms", "4 s", "3 min", "2 h", "5 days". */
export function durationText(ms: number): string {
  if (ms < 1_000) return `${Math.max(0, Math.round(ms))} ms`;
  if (ms < 60_000) return `${Math.round(ms / 1_000)} s`;
  if (ms < 3_600_000) return `${Math.round(ms / 60_000)} min`;
  if (ms < 86_400_000) return `${Math.round(ms / 3_600_000)} h`;
  return `${Math.round(ms / 86_400_000)} days`;
}

function factSentence(f: EvidenceFact): string {
  const what = f.key.startsWith('mx:') ? `Mail servers (MX) of ${f.key.slice(3)}` : f.key;
  if (f.source === 'lookup') return `${what}: looked up${f.tookMs === null ? '' : ` in ${durationText(f.tookMs)}`}: ${f.summary}.`;
  return `${what}: facts from the cache${f.ageMs === null ? '' : `, ${durationText(f.ageMs)} old`}: ${f.summary}.`;
}

function catchAllSentence(e: Evidence): string | null {
  const c = e.catchAll;
  if (!c) return null;
  if (c.source === 'none') return 'Catch-all: not probed (the provider accepts every recipient when asked, or no probe answered).';
  const result = { accepts_any_address: 'the domain accepts any address (catch-all)', rejects_unknown_addresses: 'the domain refuses unknown addresses', could_not_tell: 'no answer that tells' }[c.result];
  const asked = c.address ? `asked about the made-up address ${c.address}` : 'asked by another node';
  const reply = c.reply ? `, answered "${c.reply.code} ${c.reply.text}"${c.rule ? ` (reply-table row ${c.rule})` : ''}` : '';
  const when = c.source === 'cache' ? `; from the cache${c.ageMs === null ? '' : `, ${durationText(c.ageMs)} old`}` : '';
  return `Catch-all probe: ${asked}${reply}: ${result}${when}.`;
}

function decidedSentence(e: Evidence): string {
  const d = e.decidedBy;
  if (!d) return `Outcome: ${e.outcome}.`;
  const rule = d.rule ? `, read by the reply-table row ${d.rule.id} as ${d.rule.class.replace(/_/g, ' ')}` : '';
  return `Decided by the reply to ${d.step === 'rcpt' ? 'RCPT TO' : 'MAIL FROM'} from ${d.host ?? 'the mail server'}: "${d.reply.code} ${d.reply.text}"${rule}.`;
}

/** What the timeline says before the conversation, in order: DNS, MX hosts, notes, catch-all, the deciding reply, policy, feedback. */
export function evidenceSentences(e: Evidence): string[] {
  const sentences = e.facts.map(factSentence);
  if (e.mxHosts) {
    const hosts = e.mxHosts.map((h) => `${h.name} (preference ${h.preference}${h.address ? `, reached at ${h.address}` : ''})`);
    sentences.push(`Mail servers, in the order they are tried: ${hosts.join(', ')}.`);
  }
  sentences.push(...e.notes.map((n) => `${n}.`));
  const catchAll = catchAllSentence(e);
  if (catchAll) sentences.push(catchAll);
  sentences.push(decidedSentence(e));
  if (e.policy) sentences.push(`Your decision policy changed the recommendation from "${decisionText(e.policy.from)}" to "${decisionText(e.policy.to)}": ${reasonText(e.policy.reason)}`);
  if (e.feedback) sentences.push(`Your own send feedback decided or changed the result (${e.feedback.replace(/^your send feedback: /, '')}).`);
  return sentences;
}

export const SPEAKER: Record<EvidenceLine['dir'], string> = { C: 'Presend', S: 'Server', '-': '' };

/** When a line was, from the check's start ("+12 ms"; a shared session may have opened before the check). */
export function lineWhen(line: EvidenceLine): string {
  return line.atMs < 0 ? `${durationText(-line.atMs)} before` : `+${durationText(line.atMs)}`;
}

export function lineTook(line: EvidenceLine): string {
  return line.tookMs === undefined ? '' : ` (after ${durationText(line.tookMs)})`;
}
