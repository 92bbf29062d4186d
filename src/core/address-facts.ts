/**
 * What is known about an address before any network: its traits (role, free provider,
 * suspected typo) and the maintained lists that decide it outright.
 */
import type { AddressTraits, ListHit } from './classify-finding.js';
import { isDisposableDomain, isFreeProvider, isRoleLocalPart, looksLikeSpamtrap } from './domain/lists.js';
import { suggestDomain } from './domain/typo.js';
import type { ParsedAddress } from './syntax/address.js';

export const NO_TRAITS: AddressTraits = { role: false, free: false, didYouMean: null, providerFamily: null };

/** What the domain alone says; the same for every address of it (a batch looks it up once). */
export interface DomainTraits {
  free: boolean;
  /** The domain a typo most likely meant, or null. */
  suggestion: string | null;
}

export function domainTraitsOf(domain: string): DomainTraits {
  return { free: isFreeProvider(domain), suggestion: suggestDomain(domain) };
}

/** Provider family is filled in once the MX hosts are known. */
export function traitsOf(address: ParsedAddress, domain: DomainTraits = domainTraitsOf(address.domain)): AddressTraits {
  return {
    role: isRoleLocalPart(address.localPart),
    free: domain.free,
    didYouMean: domain.suggestion ? `${address.localPart}@${domain.suggestion}` : null,
    providerFamily: null,
  };
}

/** The maintained lists: a disposable domain needs no probe, the list is the evidence. */
export function domainListHit(address: ParsedAddress): ListHit | null {
  if (isDisposableDomain(address.domain)) return 'disposable_domain';
  if (looksLikeSpamtrap(address.localPart)) return 'spamtrap_pattern';
  return null;
}
