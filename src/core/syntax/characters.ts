/**
 * Characters a mailbox never contains, even where RFC 6531 (UTF8-non-ascii) would let them
 * through: they are invisible or meaningless, and only ever arrive by accident (copy-paste,
 * a BOM) or by intent (a right-to-left override that makes `moc.elpmaxe@` read backwards).
 * Unicode categories per UAX #44 §5.7.1: Cf format, Zl/Zp separators, Zs spaces other than
 * U+0020, Co private use; noncharacters per Unicode §23.7 (U+FDD0–U+FDEF and every U+xxFFFE/F).
 * C0/C1 controls (Cc) and lone surrogates (Cs) are refused by address.ts already.
 */

// Format characters, line/paragraph separators and non-ASCII spaces: invisible in print.
const INVISIBLE = /[\p{Cf}\p{Zl}\p{Zp}]|(?! )\p{Zs}/u;
const PRIVATE_USE = /\p{Co}/u;
const NONCHARACTER = /[\u{FDD0}-\u{FDEF}\u{FFFE}\u{FFFF}\u{1FFFE}\u{1FFFF}\u{2FFFE}\u{2FFFF}\u{3FFFE}\u{3FFFF}\u{4FFFE}\u{4FFFF}\u{5FFFE}\u{5FFFF}\u{6FFFE}\u{6FFFF}\u{7FFFE}\u{7FFFF}\u{8FFFE}\u{8FFFF}\u{9FFFE}\u{9FFFF}\u{AFFFE}\u{AFFFF}\u{BFFFE}\u{BFFFF}\u{CFFFE}\u{CFFFF}\u{DFFFE}\u{DFFFF}\u{EFFFE}\u{EFFFF}\u{FFFFE}\u{FFFFF}\u{10FFFE}\u{10FFFF}]/u;

export type CharacterProblem = 'invisible_character' | 'disallowed_character';

/** The first invisible or disallowed character of `text`, or null. */
export function characterProblemOf(text: string): CharacterProblem | null {
  if (INVISIBLE.test(text)) return 'invisible_character';
  if (PRIVATE_USE.test(text) || NONCHARACTER.test(text)) return 'disallowed_character';
  return null;
}

/** The character a problem is about, for the message. */
export function firstOffendingCharacter(text: string, problem: CharacterProblem): string | null {
  const pattern = problem === 'invisible_character' ? INVISIBLE : new RegExp(`${PRIVATE_USE.source}|${NONCHARACTER.source}`, 'u');
  return pattern.exec(text)?.[0] ?? null;
}

// Names of the characters people actually meet; the rest are named by code point alone.
const NAMES: Record<number, string> = {
  0x09: 'a tab',
  0x0a: 'a line feed',
  0x0d: 'a carriage return',
  0x20: 'a space',
  0xa0: 'a no-break space',
  0xad: 'a soft hyphen',
  0x200b: 'a zero-width space',
  0x200c: 'a zero-width non-joiner',
  0x200d: 'a zero-width joiner',
  0x200e: 'a left-to-right mark',
  0x200f: 'a right-to-left mark',
  0x202e: 'a right-to-left override',
  0x2028: 'a line separator',
  0x2029: 'a paragraph separator',
  0x2060: 'a word joiner',
  0x3000: 'an ideographic space',
  0xfeff: 'a byte order mark (zero-width no-break space)',
};

/** "a line feed (U+000A)", "U+E000". */
export function nameOfCharacter(char: string): string {
  const code = char.codePointAt(0) ?? 0;
  const hex = `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
  const name = NAMES[code];
  return name ? `${name} (${hex})` : hex;
}
