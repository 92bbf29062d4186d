import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { parseAddress, normalizeAddress, type SyntaxError } from '../../src/core/syntax/address.js';

const VALID: Array<[input: string, normalized: string, note: string]> = [
  ['alice@example.com', 'alice@example.com', 'plain'],
  ['Alice.Smith@Example.COM', 'Alice.Smith@example.com', 'domain lower-cased, local part kept as given'],
  ['  bob@example.com  ', 'bob@example.com', 'surrounding white space trimmed'],
  ['user+tag@example.com', 'user+tag@example.com', 'sub-address'],
  ["o'brien@example.ie", "o'brien@example.ie", 'apostrophe is atext'],
  ['!#$%&*+-/=?^_`{|}~@example.org', '!#$%&*+-/=?^_`{|}~@example.org', 'every atext symbol'],
  ['"john doe"@example.com', '"john doe"@example.com', 'quoted string with a space'],
  ['"john..doe"@example.com', '"john..doe"@example.com', 'consecutive dots are fine inside quotes'],
  ['"a\\"b"@example.com', '"a\\"b"@example.com', 'escaped quote'],
  ['"a\\\\b"@example.com', '"a\\\\b"@example.com', 'escaped backslash'],
  ['"a@b"@example.com', '"a@b"@example.com', 'at sign inside quotes'],
  ['user@bücher.de', 'user@xn--bcher-kva.de', 'IDN domain encoded to A-labels (UTS-46)'],
  ['user@MÜNCHEN.de', 'user@xn--mnchen-3ya.de', 'IDN upper case folded'],
  ['user@faß.de', 'user@xn--fa-hia.de', 'nontransitional ß'],
  ['user@xn--bcher-kva.de', 'user@xn--bcher-kva.de', 'A-label given directly'],
  ['用户@例子.广告', '用户@xn--fsqu00a.xn--4rr70v', 'EAI: UTF-8 local part (RFC 6531) and IDN'],
  ['josé@example.com', 'josé@example.com', 'EAI: accented local part'],
  ['a@b.co', 'a@b.co', 'shortest sensible'],
  [`${'a'.repeat(64)}@example.com`, `${'a'.repeat(64)}@example.com`, 'local part of exactly 64 octets'],
  [`x@${'a'.repeat(63)}.com`, `x@${'a'.repeat(63)}.com`, 'label of exactly 63 octets'],
  ['x@sub-domain.example-site.co.uk', 'x@sub-domain.example-site.co.uk', 'hyphens inside labels'],
  ['x@123.example.com', 'x@123.example.com', 'numeric label that is not the TLD'],
];

const INVALID: Array<[input: string, error: SyntaxError, note: string]> = [
  ['', 'empty', 'empty'],
  ['   ', 'empty', 'only white space'],
  ['alice.example.com', 'missing_at', 'no at sign'],
  ['@example.com', 'empty_local_part', 'no local part'],
  ['""@example.com', 'empty_local_part', 'empty quoted local part'],
  ['alice@', 'empty_domain', 'no domain'],
  ['.alice@example.com', 'leading_dot', 'leading dot'],
  ['alice.@example.com', 'trailing_dot', 'trailing dot in local part'],
  ['al..ice@example.com', 'consecutive_dots', 'consecutive dots'],
  ['alice@example.com.', 'trailing_dot', 'trailing dot in domain'],
  ['alice@.example.com', 'leading_dot', 'leading dot in domain'],
  ['alice@example..com', 'consecutive_dots', 'consecutive dots in domain'],
  ['john doe@example.com', 'invalid_local_part', 'unquoted space'],
  ['a@b@example.com', 'invalid_local_part', 'two at signs'],
  ['a"b@example.com', 'invalid_local_part', 'stray quote'],
  ['"unclosed@example.com', 'unclosed_quote', 'unclosed quote'],
  ['"a\\\u00e9"@example.com', 'invalid_quoted_string', 'quoted-pair must be printable ASCII'],
  ['"ab"c@example.com', 'invalid_local_part', 'text after the closing quote'],
  ['a\u0000b@example.com', 'control_character', 'NUL'],
  ['"a\tb"@example.com', 'control_character', 'tab inside quotes'],
  ['ab\r\n@example.com', 'control_character', 'CRLF (header injection)'],
  ['a\u007f@example.com', 'control_character', 'DEL'],
  ['a\u0085@example.com', 'control_character', 'C1 control'],
  ['a\ud800@example.com', 'malformed_unicode', 'lone surrogate'],
  ['John Doe <john@example.com>', 'display_name', 'display name'],
  ['<john@example.com>', 'display_name', 'angle brackets'],
  ['john(comment)@example.com', 'comment', 'comment in local part'],
  ['john@(comment)example.com', 'comment', 'comment in domain'],
  ['john@[192.0.2.1]', 'domain_literal', 'IPv4 domain literal'],
  ['john@[IPv6:2001:db8::1]', 'domain_literal', 'IPv6 domain literal'],
  [`${'a'.repeat(65)}@example.com`, 'local_part_too_long', '65 octets'],
  [`${'é'.repeat(33)}@example.com`, 'local_part_too_long', '33 two-octet characters are 66 octets'],
  [`x@${'a'.repeat(64)}.com`, 'label_too_long', '64-octet label'],
  [`x@${Array.from({ length: 60 }, () => 'abcd').join('.')}.com`, 'domain_too_long', 'domain over 255 octets'],
  [`${'a'.repeat(64)}@${`${'b'.repeat(60)}.`.repeat(5)}com`, 'too_long', 'over 320 characters'],
  ['x@localhost', 'domain_needs_dot', 'single-label domain'],
  ['x@1.2.3.4', 'numeric_tld', 'bare IP address'],
  ['x@exa_mple.com', 'invalid_domain', 'underscore in domain'],
  ['x@exa%41mple.com', 'invalid_domain', 'percent escape in domain'],
  ['x@-example.com', 'invalid_domain', 'label starting with a hyphen'],
  ['x@example-.com', 'invalid_domain', 'label ending with a hyphen'],
  ['x@exa mple.com', 'invalid_domain', 'space in domain'],
];

describe('mailbox syntax (RFC 5321, RFC 6531, UTS-46)', () => {
  for (const [input, normalized, note] of VALID) {
    test(`accepts ${JSON.stringify(input)} (${note})`, () => {
      const parsed = parseAddress(input);
      assert.ok(parsed.ok, `expected valid, got ${parsed.ok ? '' : parsed.error}`);
      assert.equal(parsed.address.normalized, normalized);
    });
  }
  for (const [input, error, note] of INVALID) {
    test(`refuses ${JSON.stringify(input.length > 60 ? `${input.slice(0, 60)}…` : input)} as ${error} (${note})`, () => {
      const parsed = parseAddress(input);
      assert.equal(parsed.ok, false);
      assert.equal(parsed.ok ? null : parsed.error, error);
    });
  }

  test('a UTF-8 local part is flagged as needing SMTPUTF8, an ASCII one is not', () => {
    const eai = parseAddress('josé@example.com');
    const ascii = parseAddress('jose@example.com');
    assert.ok(eai.ok && ascii.ok);
    assert.equal(eai.address.asciiLocalPart, false);
    assert.equal(ascii.address.asciiLocalPart, true);
  });

  test('the Unicode form of an IDN domain is kept for display', () => {
    const parsed = parseAddress('user@Bücher.de');
    assert.ok(parsed.ok);
    assert.equal(parsed.address.domain, 'xn--bcher-kva.de');
    assert.equal(parsed.address.domainUnicode, 'bücher.de');
  });

  test('normalizeAddress gives the batch de-duplication key or null', () => {
    assert.equal(normalizeAddress('Bob@EXAMPLE.com'), 'Bob@example.com');
    assert.equal(normalizeAddress('Bob@example.com'), normalizeAddress(' Bob@Example.Com '));
    assert.equal(normalizeAddress('nope'), null);
  });
});
