/**
 * `presend policy show|set` (docs/policy.md): an account's decision policy, on the store like
 * `presend keys`. `set` makes the next version from the one in force; checks decided from then
 * on follow it, on every node at once; stored results keep their decisions.
 */
import type { Command } from 'commander';
import { userInfo } from 'node:os';
import { PRESEND_DECISIONS, PUBLIC_VERDICTS } from '../../core/types.js';
import type { PolicyVersion } from '../../store/roles/policies.js';
import { account, refused } from '../../service/operations/admin.js';
import { parseDecisionArguments, policyTable } from '../../service/policy/decision-policy.js';
import type { PolicyChange } from '../../service/policy/decision-policy.js';
import { changePolicy, policyOverview } from '../../service/policy/policies.js';
import { runAdmin } from '../output/admin-command.js';
import { UsageError } from '../output/exit-codes.js';

const DB = ['--database <url>', 'store URL (default PRESEND_DATABASE_URL or sqlite:./data/presend.db)'] as const;
const ACCOUNT = ['--account <name>', 'account name'] as const;

/** The OS user running the command, for the version's "changed by" (no passwd entry in some containers). */
function whoRuns(): string {
  try {
    return userInfo().username;
  } catch {
    // Settings are read in src/config.ts only (test/service/config.test.ts); a user without a passwd entry is named as such.
    return 'unknown';
  }
}

const collect = (value: string, previous: string[]): string[] => [...previous, value];

/** `--min-confidence 0.8` or `none`. */
function parseThreshold(text: string): number | null {
  if (text.trim().toLowerCase() === 'none') return null;
  const n = Number(text);
  if (text.trim() === '' || !Number.isFinite(n)) throw new UsageError(`--min-confidence takes a number above 0 and at most 1, or none; got "${text}"`);
  return n;
}

export function describePolicy(policy: PolicyVersion, history: readonly PolicyVersion[]): string {
  const head =
    policy.version === 0
      ? 'Version 0: the default table (docs/design.md §5); never changed.'
      : `Version ${policy.version}, set by ${policy.changedBy ?? '?'} at ${policy.changedAt ?? '?'}.`;
  const rows = policyTable(policy.rules).map((r) => `  ${r.verdict.padEnd(29)} ${r.decision.padEnd(18)} ${r.byDefault ? '(default)' : '(policy rule)'}`);
  const threshold = policy.rules.minConfidence === null ? 'none' : `${policy.rules.minConfidence} (an actionable verdict less sure than this is do_not_decide)`;
  const past = history.length === 0 ? [] : ['', 'History (newest first):', ...history.map((v) => `  v${v.version}  ${v.changedAt ?? ''}  ${v.changedBy ?? ''}  ${summary(v)}`)];
  return [head, '', 'verdict                       decision', ...rows, '', `Confidence threshold: ${threshold}`, ...past].join('\n');
}

function summary(v: PolicyVersion): string {
  const rules = Object.entries(v.rules.decisions).map(([verdict, decision]) => `${verdict}=${decision}`);
  if (v.rules.minConfidence !== null) rules.push(`min-confidence=${v.rules.minConfidence}`);
  return rules.length === 0 ? '(the default table)' : rules.join(' ');
}

const shown = (v: PolicyVersion) => ({ version: v.version, decisions: v.rules.decisions, minConfidence: v.rules.minConfidence, changedBy: v.changedBy, changedAt: v.changedAt });

export function register(program: Command): void {
  const policy = program.command('policy').description("Show or change an account's decision policy in the local store (admin).");
  policy
    .command('show')
    .description('Print the decision each verdict gets, the confidence threshold, and the versions before.')
    .requiredOption(...ACCOUNT)
    .option(...DB)
    .option('--json', 'print JSON')
    .action(async (flags: { account: string; database?: string; json?: boolean }) =>
      runAdmin(flags, async (backend) => {
        const a = await account(backend, flags.account);
        if (a.kind === 'refused') return a;
        const { current, history } = await policyOverview(backend.policies, a.value.id);
        return { text: describePolicy(current, history), json: { ...shown(current), table: policyTable(current.rules), history: history.map(shown) } };
      }),
    );
  policy
    .command('set')
    .description('Make a new version of the policy from the one in force, changed as the flags say.')
    .requiredOption(...ACCOUNT)
    .option('--decision <VERDICT=DECISION>', 'a verdict\'s decision, or VERDICT=default to drop its rule (repeatable)', collect, [])
    .option('--min-confidence <n|none>', 'actionable verdicts less sure than n (0 < n ≤ 1) become do_not_decide; none removes it')
    .option('--reset', 'start from the default table (then apply the other flags)')
    .option(...DB)
    .option('--json', 'print JSON')
    .addHelpText(
      'after',
      `
Examples:
  $ presend policy set --account acme --decision ROLE=send --decision CATCH_ALL=manual_review
  $ presend policy set --account acme --min-confidence 0.8
  $ presend policy set --account acme --decision ROLE=default --min-confidence none
  $ presend policy set --account acme --reset

Verdicts: ${PUBLIC_VERDICTS.join(', ')}.
Decisions: ${PRESEND_DECISIONS.join(', ')}.
Refused (docs/policy.md): send or suppress for a non-verdict (GREYLISTED, TRANSIENT, UNKNOWN,
UNKNOWN_WEBMAIL); send or send_with_caution for UNDELIVERABLE_*, SPAMTRAP, BLACKLISTED;
enrich_first for any verdict. New checks follow the new version; stored results do not change.
Exit codes: 0 set, 1 no such account, 2 a refused or malformed change.`,
    )
    .action(async (flags: { account: string; decision: string[]; minConfidence?: string; reset?: boolean; database?: string; json?: boolean }) =>
      runAdmin(flags, async (backend) => {
        const parsed = parseDecisionArguments(flags.decision);
        if (!parsed.ok) throw new UsageError(parsed.message);
        const change: PolicyChange = { decisions: parsed.decisions, ...(flags.reset ? { reset: true } : {}) };
        if (flags.minConfidence !== undefined) change.minConfidence = parseThreshold(flags.minConfidence);
        if (flags.decision.length === 0 && flags.minConfidence === undefined && !flags.reset) throw new UsageError('nothing to change: give --decision, --min-confidence or --reset');
        const a = await account(backend, flags.account);
        if (a.kind === 'refused') return a;
        const outcome = await changePolicy(backend.policies, { accountId: a.value.id, change, changedBy: `cli:${whoRuns()}`, now: new Date() });
        if (outcome.kind === 'refused') return refused('invalid_argument', outcome.message);
        if (outcome.kind === 'stale') return refused('invalid_argument', `another change (version ${outcome.current}) was made meanwhile; run the command again`);
        const { current, history } = await policyOverview(backend.policies, a.value.id);
        return { text: describePolicy(current, history.slice(1)), json: shown(outcome.policy) };
      }),
    );
}
