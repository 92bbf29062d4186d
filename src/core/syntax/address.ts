/**
 * Mailbox syntax: RFC 5321 §4.1.2 (Mailbox = Local-part "@" Domain), RFC 6531 §3.3 for UTF-8
 * in the local part (SMTPUTF8), UTS-46/IDNA for the domain (node:url domainToASCII).
 *
 * Deliberately narrower than RFC 5322 addr-spec: no comments, no folding white space, no
 * display names, no obsolete forms — a pre-send check receives bare mailboxes, and anything
 * else would not survive an SMTP envelope. Domain literals (`[192.0.2.1]`) are valid SMTP but
 * refused with a reason: probing them would let callers aim the prober at arbitrary IPs.
 *
 * Nothing is trimmed: an address wrapped in spaces, CR or LF is refused with
 * `surrounding_whitespace` (the interface's `email` format; list imports trim a cell
 * themselves and say so, see list-cell.ts). A single-label domain (`test@io`) is valid syntax:
 * whether it receives mail is DNS's to say.
 */
import { domainToASCII, domainToUnicode } from 'node:url';
import { characterProblemOf } from './characters.js';

export const SYNTAX_ERRORS = [
  'empty',
  'surrounding_whitespace',
  'too_long',
  'missing_at',
  'display_name',
  'comment',
  'control_character',
  'invisible_character',
  'disallowed_character',
  'malformed_unicode',
  'empty_local_part',
  'local_part_too_long',
  'invalid_local_part',
  'leading_dot',
  'trailing_dot',
  'consecutive_dots',
  'unclosed_quote',
  'invalid_quoted_string',
  'domain_literal',
  'empty_domain',
  'domain_too_long',
  'label_too_long',
  'empty_label',
  'invalid_domain',
  'numeric_tld',
] as const;
export type SyntaxError = (typeof SYNTAX_ERRORS)[number];

export interface ParsedAddress {
  /** Local part exactly as given (quotes and escapes kept). */
  localPart: string;
  /** Domain in ASCII (A-label) form, lower-cased. */
  domain: string;
  /** Domain in Unicode (U-label) form, for display and typo checks. */
  domainUnicode: string;
  /** `localPart@domain`: the normalised address (docs/design.md §4, batch duplicates). */
  normalized: string;
  quoted: boolean;
  /** True when the local part is pure ASCII; false means SMTPUTF8 is needed (RFC 6531). */
  asciiLocalPart: boolean;
}

export type AddressParse = { ok: true; address: ParsedAddress } | { ok: false; error: SyntaxError };

// RFC 5321 §4.5.3.1: local part 64 octets, domain 255 octets; 320 is the total the interface allows.
const MAX_LOCAL_OCTETS = 64;
const MAX_DOMAIN_OCTETS = 255;
const MAX_LABEL_OCTETS = 63;
const MAX_TOTAL = 320;

// atext (RFC 5322 §3.2.3) plus UTF8-non-ascii (RFC 6531 §3.3) — every plane, so emoji and
// CJK extension B are atext too — and the dots between atoms.
const ATEXT_AND_DOTS = /^[A-Za-z0-9!#$%&'*+\-/=?^_`{|}~\u{80}-\u{10FFFF}.]+$/u;
// JavaScript's white space (ECMA-262 WhiteSpace and LineTerminator): what trim() would remove.
const EDGE_SPACE = /^\s|\s$/u;
// C0 controls, DEL and C1 controls are never part of a mailbox, not even quoted.
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/u; // eslint-disable-line no-control-regex
// Half of a UTF-16 surrogate pair cannot be encoded as UTF-8 (RFC 3629 §3).
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const LDH_LABEL = /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/;
// Printable ASCII only: no control character, no surrogate, one octet per character.
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;
const PARENTHESIS = /[()]/;

/** UTF-8 length; that of printable ASCII text is its length. */
function octetLength(text: string, ascii: boolean): number {
  return ascii ? text.length : Buffer.byteLength(text, 'utf8');
}

function fail(error: SyntaxError): AddressParse {
  return { ok: false, error };
}

/** Splits off a quoted local part (RFC 5321 Quoted-string, RFC 6531 qtextSMTP). */
function scanQuoted(text: string): { end: number } | { error: SyntaxError } {
  for (let i = 1; i < text.length; i++) {
    const ch = text[i];
    if (ch === '\\') {
      const next = text[i + 1];
      // quoted-pairSMTP = %d92 %d32-126
      if (next === undefined || next < ' ' || next > '~') return { error: 'invalid_quoted_string' };
      i++;
    } else if (ch === '"') {
      return { end: i + 1 };
    }
  }
  return { error: 'unclosed_quote' };
}

function checkDotString(local: string): SyntaxError | null {
  if (local.startsWith('.')) return 'leading_dot';
  if (local.endsWith('.')) return 'trailing_dot';
  if (local.includes('..')) return 'consecutive_dots';
  // No empty atom is left, so the rest is: every atom atext.
  return ATEXT_AND_DOTS.test(local) ? null : 'invalid_local_part';
}

// Letters, digits, hyphens and dots, no A-label: UTS-46 maps such a name to its lower case and
// back to itself, so the IDNA round trip (≈ 1 µs, most of parsing) is skipped for it.
const PLAIN_LDH = /^[A-Za-z0-9.-]+$/;
const A_LABEL = /(?:^|\.)xn--/i;

function checkDomain(raw: string): { ascii: string; unicode: string } | { error: SyntaxError } {
  const plain = checkDomainLabels(raw);
  if ('error' in plain) return plain;
  return { ascii: plain.ascii, unicode: PLAIN_LDH.test(raw) && !A_LABEL.test(raw) ? plain.ascii : domainToUnicode(plain.ascii) };
}

// A whole plain domain in one test (most addresses): LDH labels of 1–63 octets, not all-numeric last.
const LDH_DOMAIN = /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
const NUMERIC_TLD = /(?:^|\.)\d+$/;

function checkDomainLabels(raw: string): { ascii: string } | { error: SyntaxError } {
  if (PLAIN_LDH.test(raw) && !A_LABEL.test(raw)) {
    const ascii = raw.toLowerCase();
    if (ascii.length <= MAX_DOMAIN_OCTETS && LDH_DOMAIN.test(ascii) && !NUMERIC_TLD.test(ascii)) return { ascii };
    // Otherwise the checks below name what is wrong.
  }
  if (raw === '') return { error: 'empty_domain' };
  if (raw.startsWith('[')) return { error: 'domain_literal' };
  // Only LDH, dots and non-ASCII (IDN) may appear; domainToASCII alone would accept `_` or `%41`.
  if (/[\u0000-\u002c/:-@[-`{-\u007f]/u.test(raw)) return { error: 'invalid_domain' }; // eslint-disable-line no-control-regex
  if (raw.endsWith('.')) return { error: 'trailing_dot' };
  if (raw.startsWith('.')) return { error: 'leading_dot' };
  if (raw.includes('..')) return { error: 'consecutive_dots' };
  const ascii = PLAIN_LDH.test(raw) && !A_LABEL.test(raw) ? raw.toLowerCase() : domainToASCII(raw);
  if (ascii === '') return { error: 'invalid_domain' };
  if (ascii.length > MAX_DOMAIN_OCTETS) return { error: 'domain_too_long' };
  // A single label (`io`, `localhost`) is valid syntax (RFC 5321 §2.3.5 allows it); DNS decides.
  const labels = ascii.split('.');
  for (const label of labels) {
    if (label === '') return { error: 'empty_label' };
    if (label.length > MAX_LABEL_OCTETS) return { error: 'label_too_long' };
    if (!LDH_LABEL.test(label)) return { error: 'invalid_domain' };
  }
  // RFC 3696 §2: a top-level domain is never all-numeric (keeps `1.2.3.4` out).
  if (/^\d+$/.test(labels[labels.length - 1] ?? '')) return { error: 'numeric_tld' };
  return { ascii };
}

/** Parses and normalises one mailbox, given exactly as it should be: a bare `local@domain`. */
export function parseAddress(text: string): AddressParse {
  if (text.trim() === '') return fail('empty');
  if (EDGE_SPACE.test(text)) return fail('surrounding_whitespace');
  if (text.length > MAX_TOTAL) return fail('too_long');
  // The common case, checked once: the character checks below cannot fail on it, and its
  // UTF-8 length is its length.
  const ascii = PRINTABLE_ASCII.test(text);
  if (!ascii && LONE_SURROGATE.test(text)) return fail('malformed_unicode');
  if (!ascii && CONTROL.test(text)) return fail('control_character');
  if (!ascii) {
    const problem = characterProblemOf(text);
    if (problem) return fail(problem);
  }
  // `Name <box@host>` or `<box@host>`: a header form, not a mailbox.
  if (text.endsWith('>') && text.includes('<')) return fail('display_name');

  let localPart: string;
  let rest: string;
  const quoted = text.startsWith('"');
  if (quoted) {
    const scan = scanQuoted(text);
    if ('error' in scan) return fail(scan.error);
    localPart = text.slice(0, scan.end);
    rest = text.slice(scan.end);
    if (!rest.startsWith('@')) return fail(rest === '' ? 'missing_at' : 'invalid_local_part');
    if (localPart === '""') return fail('empty_local_part');
  } else {
    const at = text.lastIndexOf('@');
    if (at < 0) return fail('missing_at');
    localPart = text.slice(0, at);
    rest = text.slice(at);
    if (localPart === '') return fail('empty_local_part');
    if (PARENTHESIS.test(localPart)) return fail('comment');
    const dotError = checkDotString(localPart);
    if (dotError) return fail(dotError);
  }
  if (octetLength(localPart, ascii) > MAX_LOCAL_OCTETS) return fail('local_part_too_long');

  const rawDomain = rest.slice(1);
  if (PARENTHESIS.test(rawDomain)) return fail('comment');
  if (rawDomain.includes('@')) return fail('invalid_domain');
  const domain = checkDomain(rawDomain);
  if ('error' in domain) return fail(domain.error);

  const normalized = `${localPart}@${domain.ascii}`;
  if (octetLength(normalized, ascii) > MAX_TOTAL) return fail('too_long');
  return {
    ok: true,
    address: {
      localPart,
      domain: domain.ascii,
      domainUnicode: domain.unicode,
      normalized,
      quoted,
      asciiLocalPart: ascii || PRINTABLE_ASCII.test(localPart),
    },
  };
}

/** Convenience for callers that only need the normalised form (service de-duplication). */
export function normalizeAddress(input: string): string | null {
  const parsed = parseAddress(input);
  return parsed.ok ? parsed.address.normalized : null;
}
