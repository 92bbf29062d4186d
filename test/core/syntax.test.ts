import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { parseAddress, normalizeAddress, SYNTAX_ERRORS, type SyntaxError } from '../../src/core/syntax/address.js';
import { describeSyntaxError, invalidAddressMessage, syntaxProblemOf } from '../../src/core/syntax/problems.js';
import { addressFromCell } from '../../src/core/syntax/list-cell.js';

const VALID: Array<[input: string, normalized: string, note: string]> = [
  ['alice@example.com', 'alice@example.com', 'plain'],
  ['Alice.Smith@Example.COM', 'Alice.Smith@example.com', 'domain lower-cased, local part kept as given'],
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
  ['test@io', 'test@io', 'single-label domain: valid syntax, DNS decides'],
  ['x@localhost', 'x@localhost', 'single-label domain localhost: valid syntax, the private-address filter decides'],
  ['😀@example.com', '😀@example.com', 'emoji outside the basic plane (RFC 6531 UTF8-non-ascii)'],
  ['\u{20000}\u{2A6D6}@example.com', '\u{20000}\u{2A6D6}@example.com', 'CJK extension B (plane 2)'],
  ['a😀b.c@例子.广告', 'a😀b.c@xn--fsqu00a.xn--4rr70v', 'astral characters between dots, with an IDN'],
  ['"😀 x"@example.com', '"😀 x"@example.com', 'astral character in a quoted local part'],
];

const INVALID: Array<[input: string, error: SyntaxError, note: string]> = [
  ['', 'empty', 'empty'],
  ['   ', 'empty', 'only white space'],
  [' bob@example.com', 'surrounding_whitespace', 'leading space (no silent trimming)'],
  ['bob@example.com ', 'surrounding_whitespace', 'trailing space'],
  ['bob@example.com\n', 'surrounding_whitespace', 'trailing LF'],
  ['bob@example.com\r\n', 'surrounding_whitespace', 'trailing CRLF'],
  ['\r\nbob@example.com', 'surrounding_whitespace', 'leading CRLF'],
  ['\tbob@example.com', 'surrounding_whitespace', 'leading tab'],
  ['bob@example.com\u00a0', 'surrounding_whitespace', 'trailing no-break space'],
  ['\ufeffbob@example.com', 'surrounding_whitespace', 'leading byte order mark'],
  ['bob@example.com\u2028', 'surrounding_whitespace', 'trailing line separator'],
  ['bob\u202e@example.com', 'invisible_character', 'right-to-left override (Cf)'],
  ['bo\u200bb@example.com', 'invisible_character', 'zero-width space (Cf)'],
  ['bo\u00adb@example.com', 'invisible_character', 'soft hyphen in the local part (Cf)'],
  ['bob@exam\u00adple.com', 'invisible_character', 'soft hyphen in the domain (UTS-46 would silently drop it)'],
  ['bob@exa\u200bmple.com', 'invisible_character', 'zero-width space in the domain'],
  ['b\ufeffob@example.com', 'invisible_character', 'byte order mark inside (Cf)'],
  ['b\u2028ob@example.com', 'invisible_character', 'line separator (Zl)'],
  ['b\u2029ob@example.com', 'invisible_character', 'paragraph separator (Zp)'],
  ['b\u00a0ob@example.com', 'invisible_character', 'no-break space inside (Zs)'],
  ['"b\u3000ob"@example.com', 'invisible_character', 'ideographic space, even quoted (Zs)'],
  ['b\ue000ob@example.com', 'disallowed_character', 'private use (Co)'],
  ['b\u{F0000}ob@example.com', 'disallowed_character', 'supplementary private use (Co)'],
  ['b\ufdd0ob@example.com', 'disallowed_character', 'noncharacter U+FDD0'],
  ['b\uffffob@example.com', 'disallowed_character', 'noncharacter U+FFFF'],
  ['b\u{1FFFE}ob@example.com', 'disallowed_character', 'noncharacter U+1FFFE'],
  ['b\u{10FFFF}ob@example.com', 'disallowed_character', 'noncharacter U+10FFFF'],
  ['\udc00bob@example.com', 'malformed_unicode', 'lone low surrogate (Cs)'],
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
  ['x@123', 'numeric_tld', 'single numeric label'],
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
    assert.equal(normalizeAddress('Bob@example.com'), normalizeAddress('Bob@Example.Com'));
    assert.equal(normalizeAddress(' Bob@Example.Com '), null, 'surrounding white space is refused, not trimmed');
    assert.equal(normalizeAddress('nope'), null);
  });

  test('an astral character counts as four octets towards the 64-octet local part', () => {
    assert.ok(parseAddress(`${'😀'.repeat(16)}@example.com`).ok, '16 × 4 = 64 octets');
    const parsed = parseAddress(`${'😀'.repeat(16)}a@example.com`);
    assert.equal(parsed.ok ? null : parsed.error, 'local_part_too_long');
  });

  test('an emoji local part needs SMTPUTF8', () => {
    const parsed = parseAddress('😀@example.com');
    assert.ok(parsed.ok);
    assert.equal(parsed.address.asciiLocalPart, false);
  });
});

describe('what the caller is told about a bad address', () => {
  const CASES: Array<[input: string, message: RegExp]> = [
    ['bob@example.com\n', /ends with a line feed \(U\+000A\)/],
    ['bob@example.com\r', /ends with a carriage return \(U\+000D\)/],
    [' bob@example.com', /starts with a space \(U\+0020\)/],
    ['\tbob@example.com', /starts with a tab \(U\+0009\)/],
    ['bob\u202e@example.com', /right-to-left override \(U\+202E\), an invisible/],
    ['bo\u200bb@example.com', /zero-width space \(U\+200B\)/],
    ['b\ue000ob@example.com', /U\+E000, a private-use character or noncharacter/],
    ['bob', /has no @/],
    ['bob@[192.0.2.1]', /IP address literal/],
  ];
  for (const [input, message] of CASES) {
    test(`${JSON.stringify(input)}: ${message.source}`, () => {
      assert.match(syntaxProblemOf(input) ?? '', message);
    });
  }

  test('every syntax error has words of its own', () => {
    for (const error of SYNTAX_ERRORS) assert.ok(describeSyntaxError('x', error).length > 5, error);
  });

  test('a valid address has no problem', () => assert.equal(syntaxProblemOf('bob@example.com'), null));

  test('the invalid_email message names the field and the problem', () => {
    assert.equal(invalidAddressMessage('emails[3]', 'a@b.com '), 'emails[3] is not a valid address: it ends with a space (U+0020); send the address without surrounding white space');
    assert.equal(invalidAddressMessage('email', 42), 'email is not a valid address: it is not a string');
  });
});

describe('addresses from list and CSV cells', () => {
  test('spaces and tabs padding a cell are trimmed, and the import is told so', () => {
    assert.deepEqual(addressFromCell('  bob@example.com\t'), { address: 'bob@example.com', trimmed: true });
    assert.deepEqual(addressFromCell('bob@example.com'), { address: 'bob@example.com', trimmed: false });
  });

  test('line breaks, no-break spaces and byte order marks are not padding: the syntax check names them', () => {
    for (const cell of ['bob@example.com\n', '\u00a0bob@example.com', '\ufeffbob@example.com']) {
      const { address } = addressFromCell(cell);
      assert.equal(address, cell);
      assert.equal(parseAddress(address).ok, false, JSON.stringify(cell));
    }
  });
});
