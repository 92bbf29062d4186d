/**
 * What is wrong with an address, in words: the API's `invalid_email` message names the
 * problem ("emails[3] is not a valid address: it ends with a line feed (U+000A)"), so a
 * caller can fix the data without guessing.
 */
import { parseAddress, type SyntaxError } from './address.js';
import { firstOffendingCharacter, nameOfCharacter } from './characters.js';

const FIXED: Record<Exclude<SyntaxError, 'surrounding_whitespace' | 'invisible_character' | 'disallowed_character'>, string> = {
  empty: 'it is empty',
  too_long: 'it is longer than 320 characters',
  missing_at: 'it has no @',
  display_name: 'it is a display name with an address in angle brackets, not a bare address',
  comment: 'it contains a comment in parentheses',
  control_character: 'it contains a control character',
  malformed_unicode: 'it contains half of a UTF-16 surrogate pair',
  empty_local_part: 'nothing comes before the @',
  local_part_too_long: 'the part before the @ is longer than 64 octets',
  invalid_local_part: 'the part before the @ contains a character not allowed there unquoted',
  leading_dot: 'a part starts with a dot',
  trailing_dot: 'a part ends with a dot',
  consecutive_dots: 'it contains two dots in a row',
  unclosed_quote: 'a quote is not closed',
  invalid_quoted_string: 'the quoted part contains an invalid escape',
  domain_literal: 'the domain is an IP address literal, which is not probed',
  empty_domain: 'nothing comes after the @',
  domain_too_long: 'the domain is longer than 255 octets',
  label_too_long: 'a domain label is longer than 63 octets',
  empty_label: 'the domain has an empty label',
  invalid_domain: 'the domain contains a character not allowed in a host name',
  numeric_tld: 'the top-level domain is all digits',
};

/** The problem with `input`, as a clause that follows "is not a valid address: ". */
export function describeSyntaxError(input: string, error: SyntaxError): string {
  switch (error) {
    case 'surrounding_whitespace': {
      const start = /^\s/u.test(input);
      const char = start ? input[0] : input[input.length - 1];
      return `it ${start ? 'starts' : 'ends'} with ${nameOfCharacter(char ?? ' ')}; send the address without surrounding white space`;
    }
    case 'invisible_character':
    case 'disallowed_character': {
      const char = firstOffendingCharacter(input, error);
      const what = error === 'invisible_character' ? 'an invisible formatting or spacing character' : 'a private-use character or noncharacter';
      return `it contains ${char ? nameOfCharacter(char) : 'a character'}, ${what}`;
    }
    default:
      return FIXED[error];
  }
}

/** null for a valid address, else why it is not one. */
export function syntaxProblemOf(input: string): string | null {
  const parsed = parseAddress(input);
  return parsed.ok ? null : describeSyntaxError(input, parsed.error);
}

/** The `invalid_email` message: "emails[3] is not a valid address: it ends with a line feed (U+000A)". */
export function invalidAddressMessage(label: string, value: unknown): string {
  if (typeof value !== 'string') return `${label} is not a valid address: it is not a string`;
  return `${label} is not a valid address: ${syntaxProblemOf(value) ?? 'it fails the syntax check'}`;
}
