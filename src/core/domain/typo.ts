/**
 * Typo suggestions (`gmial.com` → `gmail.com`) from `@zootools/email-spell-checker`.
 *
 * The library also "corrects" unknown top-level domains (`acme.test` → `acme.de`), which
 * would flag every company domain it does not know. A suggestion is kept only when it points
 * at a well-known mailbox provider: its own popular list or the free-provider list.
 */
import spellChecker from '@zootools/email-spell-checker';
import { isFreeProvider } from './lists.js';

const popular = new Set(spellChecker.POPULAR_DOMAINS);

/** A typo is one or two keystrokes away (optimal string alignment distance, swaps count once). */
const MAX_TYPO_DISTANCE = 2;

function editDistance(a: string, b: string): number {
  const rows: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) (rows[0] as number[])[j] = j;
  for (let i = 1; i <= a.length; i++) {
    const row = rows[i] as number[];
    const prev = rows[i - 1] as number[];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min((prev[j] as number) + 1, (row[j - 1] as number) + 1, (prev[j - 1] as number) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, ((rows[i - 2] as number[])[j - 2] as number) + 1);
      row[j] = best;
    }
  }
  return (rows[a.length] as number[])[b.length] as number;
}

/**
 * Returns the suggested domain, or null when the domain looks right. Costs ~27 µs a call
 * (the checker's distance to every popular domain): callers ask once per domain, not per
 * address (address-facts.ts domainTraitsOf). No memo: it would be process-global state.
 */
export function suggestDomain(domain: string): string | null {
  if (popular.has(domain)) return null;
  const suggestion = spellChecker.run({ email: `x@${domain}` });
  if (!suggestion || suggestion.domain === domain) return null;
  if (editDistance(domain, suggestion.domain) > MAX_TYPO_DISTANCE) return null;
  return popular.has(suggestion.domain) || isFreeProvider(suggestion.domain) ? suggestion.domain : null;
}
