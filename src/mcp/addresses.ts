/**
 * How many credits a batch can hold, counted before anything is created: the service holds
 * one credit per unique address (docs/design.md §3), and counts addresses as unique after
 * trimming and lower-casing (and IDNA-encoding) the domain; the local part is kept as given
 * because it may be case-sensitive (RFC 5321 §2.4).
 */
import { domainToASCII } from 'node:url';

export function normaliseAddress(address: string): string {
  const trimmed = address.trim();
  const at = trimmed.lastIndexOf('@');
  if (at <= 0) return trimmed;
  const domain = trimmed.slice(at + 1).toLowerCase();
  return `${trimmed.slice(0, at)}@${domainToASCII(domain) || domain}`;
}

export function countUniqueAddresses(addresses: readonly string[]): number {
  return new Set(addresses.map(normaliseAddress)).size;
}
