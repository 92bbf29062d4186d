/** The operator's lists (docs/design.md §5): hard bounces, traps, blocked domains — the engine's and a call's own. */
import type { ListHit } from './classify-finding.js';
import type { OperatorLists, VerifyOptions } from './ports.js';
import type { ParsedAddress } from './syntax/address.js';

type ListQuestion = 'isHardBounced' | 'isSpamtrap' | 'isBlocklistedDomain';

export async function anyListSays(lists: readonly OperatorLists[], question: ListQuestion, subject: string): Promise<boolean> {
  for (const list of lists) if (await list[question]?.(subject)) return true;
  return false;
}

/** The lists a check reads: the operator-wide ones, and the call's own. */
export function listsFor(operatorLists: readonly OperatorLists[], options: VerifyOptions): readonly OperatorLists[] {
  return options.lists ? [...operatorLists, options.lists] : operatorLists;
}

/** What the lists say of the address itself and its domain. */
export async function operatorListHit(lists: readonly OperatorLists[], address: ParsedAddress): Promise<ListHit | null> {
  if (await anyListSays(lists, 'isHardBounced', address.normalized)) return 'hard_bounced';
  if (await anyListSays(lists, 'isSpamtrap', address.normalized)) return 'spamtrap';
  if (await anyListSays(lists, 'isBlocklistedDomain', address.domain)) return 'blacklisted_domain';
  return null;
}
