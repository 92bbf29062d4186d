/**
 * PRESEND_HELO_NAME: the name the prober gives in EHLO/HELO. RFC 5321 §4.1.1.1 asks for the
 * client's fully qualified primary host name; receivers check it (Postfix
 * reject_non_fqdn_helo_hostname, reject_invalid_helo_hostname) and judge a prober that says
 * "localhost" or a bare IP address as a spam bot. So the name is refused unless it is a
 * plain, fully qualified host name that could be the prober's own.
 */
import { isIP } from 'node:net';

const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/i;
// Names that never belong to one host on the Internet: RFC 6761 §6.3 (localhost), §6.4
// (invalid), RFC 6762 (.local, multicast DNS), and the Unix placeholder "localhost.localdomain".
const NOT_A_HOST_OF_YOURS = /(?:^|\.)(?:localhost|localdomain|local|invalid)\.?$/i;

/** Why `name` cannot be the HELO name, or null when it can. */
export function heloNameProblem(name: string): string | null {
  const bare = name.startsWith('[') && name.endsWith(']') ? name.slice(1, -1).replace(/^ipv6:/i, '') : name;
  if (isIP(bare) !== 0 || /^[\d.]+$/.test(bare)) {
    return `"${name}" is an IP address; give the prober's host name (whose PTR record matches its address)`;
  }
  if (NOT_A_HOST_OF_YOURS.test(name)) return `"${name}" is not a host name of yours on the Internet; never "localhost"`;
  if (name.endsWith('.')) return `"${name}" ends with a dot; give the name without it (RFC 5321 §4.1.2 Domain)`;
  if (name.length > 253) return 'longer than 253 characters';
  const labels = name.split('.');
  if (labels.length < 2) return `"${name}" is not fully qualified; give the full host name, e.g. probe.example.com (RFC 5321 §4.1.1.1)`;
  if (!labels.every((label) => LABEL.test(label))) return `"${name}" is not a host name (letters, digits and hyphens between dots)`;
  return null;
}
