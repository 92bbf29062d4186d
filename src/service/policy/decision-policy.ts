/**
 * What an owner may change in the decision policy (docs/policy.md), and how a change is read and
 * checked. The default is the table of docs/design.md §5 (VERDICT_TABLE); an owner may name,
 * per verdict, another of the seven decisions, and a confidence threshold. Some combinations
 * are refused, because the envelope would then claim what the check did not show:
 * - a non-verdict (GREYLISTED, TRANSIENT, UNKNOWN, UNKNOWN_WEBMAIL) proves nothing about the
 *   mailbox: it keeps its default or becomes `recheck_later`, `manual_review` or `do_not_decide`,
 *   never `send` nor `suppress` (it is not billed either: a decision the check did not pay for);
 * - an address shown unable to receive, or a trap (UNDELIVERABLE_*, SPAMTRAP, BLACKLISTED), is
 *   never `send` nor `send_with_caution`: mail to it bounces or harms the sender;
 * - `enrich_first` asks for the data to be fixed (a suspected typo, `didYouMean`); it belongs to
 *   the address, not to a verdict, so no verdict maps to it.
 */
import { VERDICT_TABLE } from '../../core/envelope.js';
import { PRESEND_DECISIONS, PUBLIC_VERDICTS } from '../../core/types.js';
import type { PreSendDecision, PublicVerdict } from '../../core/types.js';
import type { PolicyRules } from '../../store/roles/policies.js';

export type PolicyChangeResult = { ok: true; rules: PolicyRules } | { ok: false; message: string };

const NON_VERDICT_CHOICES: readonly PreSendDecision[] = ['recheck_later', 'manual_review', 'do_not_decide'];
const NEVER_DELIVERS: ReadonlySet<PublicVerdict> = new Set(['UNDELIVERABLE_NO_MAILBOX', 'UNDELIVERABLE_NO_MAIL_SERVER', 'UNDELIVERABLE_BOUNCED', 'SPAMTRAP', 'BLACKLISTED']);

export const defaultDecision = (verdict: PublicVerdict): PreSendDecision => VERDICT_TABLE[verdict].decision;

export const isNonVerdict = (verdict: PublicVerdict): boolean => VERDICT_TABLE[verdict].outcome === 'non_verdict';

/** The decisions a verdict may be given, its default first. */
export function allowedDecisions(verdict: PublicVerdict): PreSendDecision[] {
  const base = defaultDecision(verdict);
  const allowed = PRESEND_DECISIONS.filter((d) => {
    if (d === base) return true;
    if (d === 'enrich_first') return false;
    if (isNonVerdict(verdict)) return NON_VERDICT_CHOICES.includes(d);
    if (NEVER_DELIVERS.has(verdict)) return d !== 'send' && d !== 'send_with_caution';
    return true;
  });
  return [base, ...allowed.filter((d) => d !== base)];
}

const isVerdict = (v: string): v is PublicVerdict => (PUBLIC_VERDICTS as readonly string[]).includes(v);
const isDecision = (d: string): d is PreSendDecision => (PRESEND_DECISIONS as readonly string[]).includes(d);

/** A change to the rules in force: per verdict a decision or `default` (the rule removed); a threshold or null (none). */
export interface PolicyChange {
  decisions?: Readonly<Record<string, string>>;
  minConfidence?: number | null;
  /** Start from the default table rather than the rules in force. */
  reset?: boolean;
}

/**
 * The rules after `change`, or why it is refused (one message naming the first bad part). A rule
 * equal to the verdict's default is dropped: the policy lists only what differs from the table.
 */
export function changeRules(current: PolicyRules, change: PolicyChange): PolicyChangeResult {
  const decisions: Partial<Record<PublicVerdict, PreSendDecision>> = change.reset ? {} : { ...current.decisions };
  for (const [rawVerdict, rawDecision] of Object.entries(change.decisions ?? {})) {
    const verdict = rawVerdict.trim().toUpperCase();
    const decision = rawDecision.trim().toLowerCase();
    if (!isVerdict(verdict)) return { ok: false, message: `"${rawVerdict}" is not a verdict; one of ${PUBLIC_VERDICTS.join(', ')}` };
    if (decision === 'default' || decision === defaultDecision(verdict)) {
      delete decisions[verdict];
      continue;
    }
    if (!isDecision(decision)) return { ok: false, message: `"${rawDecision}" is not a decision; one of ${PRESEND_DECISIONS.join(', ')}, or default` };
    if (!allowedDecisions(verdict).includes(decision)) {
      return { ok: false, message: `${verdict} cannot be "${decision}": ${refusalReason(verdict, decision)} It may be ${allowedDecisions(verdict).join(', ')}.` };
    }
    decisions[verdict] = decision;
  }
  let minConfidence = change.reset ? null : current.minConfidence;
  if (change.minConfidence !== undefined) {
    const t = change.minConfidence;
    if (t !== null && !(Number.isFinite(t) && t > 0 && t <= 1)) return { ok: false, message: `the confidence threshold must be above 0 and at most 1 (or none), got ${String(t)}` };
    minConfidence = t;
  }
  return { ok: true, rules: { decisions: sortedByVerdict(decisions), minConfidence } };
}

function refusalReason(verdict: PublicVerdict, decision: PreSendDecision): string {
  if (decision === 'enrich_first') return 'enrich_first is kept for suspected typos (didYouMean), whatever the verdict.';
  if (isNonVerdict(verdict)) return 'a non-verdict says nothing about the mailbox.';
  return 'the address cannot receive mail, or is a trap.';
}

function sortedByVerdict(decisions: Partial<Record<PublicVerdict, PreSendDecision>>): Partial<Record<PublicVerdict, PreSendDecision>> {
  const sorted: Partial<Record<PublicVerdict, PreSendDecision>> = {};
  for (const v of PUBLIC_VERDICTS) {
    const d = decisions[v];
    if (d) sorted[v] = d;
  }
  return sorted;
}

/** `ROLE=send`-style arguments (the CLI's `--decision`), as a change's decisions. */
export function parseDecisionArguments(args: readonly string[]): { ok: true; decisions: Record<string, string> } | { ok: false; message: string } {
  const decisions: Record<string, string> = {};
  for (const arg of args) {
    const m = /^\s*([A-Za-z_]+)\s*=\s*([A-Za-z_]+)\s*$/.exec(arg);
    if (!m?.[1] || !m[2]) return { ok: false, message: `--decision takes VERDICT=DECISION (e.g. ROLE=send), got "${arg}"` };
    decisions[m[1]] = m[2];
  }
  return { ok: true, decisions };
}

/** One line per verdict: its decision under `rules`, and whether a rule or the default gives it. */
export function policyTable(rules: PolicyRules): Array<{ verdict: PublicVerdict; decision: PreSendDecision; byDefault: boolean; allowed: PreSendDecision[] }> {
  return PUBLIC_VERDICTS.map((verdict) => {
    const rule = rules.decisions[verdict];
    return { verdict, decision: rule ?? defaultDecision(verdict), byDefault: rule === undefined, allowed: allowedDecisions(verdict) };
  });
}
