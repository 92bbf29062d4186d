/**
 * Domain and local-part facts from maintained packages, never hand lists: the lists change
 * weekly upstream and a dependency bump is how Presend follows them. Each list is read once,
 * on first use, into a Set (lookups are O(1) per address).
 */
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

let disposable: Set<string> | undefined;
let disposableWildcards: Set<string> | undefined;
let freeProviders: Set<string> | undefined;
let roles: Set<string> | undefined;

function loadStrings(id: string): string[] {
  const value: unknown = require(id);
  if (!Array.isArray(value)) throw new Error(`${id} is not a list of strings`);
  return value.filter((item): item is string => typeof item === 'string').map((item) => item.toLowerCase());
}

/** `disposable-email-domains`: exact domains, plus wildcard.json whose every subdomain is disposable. */
export function isDisposableDomain(domain: string): boolean {
  disposable ??= new Set(loadStrings('disposable-email-domains/index.json'));
  disposableWildcards ??= new Set(loadStrings('disposable-email-domains/wildcard.json'));
  if (disposable.has(domain)) return true;
  // The domain itself and each parent: a.b.example.com, b.example.com, example.com, com.
  for (let at = 0; at >= 0; at = domain.indexOf('.', at) + 1 || -1) {
    if (disposableWildcards.has(at === 0 ? domain : domain.slice(at))) return true;
  }
  return false;
}

/** `email-providers` all.json: free mailbox providers (gmail.com, gmx.de, …). */
export function isFreeProvider(domain: string): boolean {
  freeProviders ??= new Set(loadStrings('email-providers/all.json'));
  return freeProviders.has(domain);
}

/**
 * `role-based-email-addresses`: shared mailboxes (info, admin, postmaster, …). A `+tag`
 * (sub-addressing) does not change the role: `sales+eu@` is still `sales@`.
 */
export function isRoleLocalPart(localPart: string): boolean {
  roles ??= new Set(loadStrings('role-based-email-addresses'));
  let base = localPart;
  if (base.startsWith('"')) base = base.replace(/^"|"$/g, '');
  const plus = base.indexOf('+');
  if (plus >= 0) base = base.slice(0, plus);
  return roles.has(base.toLowerCase());
}

// Matched up to the first `+` (sub-addressing), or to the end.
const SPAMTRAP_LOCAL_PART = /^(spam[-_.]?trap|honey[-_.]?pot)s?\d*(?:\+|$)/i;

/**
 * Local parts that are traps by construction (`spamtrap@`, `honeypot@`): a weak signal, so
 * the verdict is RISKY_SPAMTRAP (manual review), never SPAMTRAP, which needs an operator list.
 */
export function looksLikeSpamtrap(localPart: string): boolean {
  return SPAMTRAP_LOCAL_PART.test(localPart);
}
