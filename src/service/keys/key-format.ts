/**
 * API keys (docs/design.md §3): `ps_live.` or `ps_test.` + 40 random base62 characters. Only the
 * SHA-256 and a short display prefix are stored; authentication looks a key up by its hash,
 * so no secret is ever compared character by character.
 */
import { createHash, randomInt } from 'node:crypto';
import type { KeyMode } from '../../store/api-keys.js';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const SECRET_LENGTH = 40;
const KEY_SHAPE = /^ps_(live|test)\.[0-9A-Za-z]{40}$/;
/** `ps_live.` + 6 characters: enough to tell keys apart in a listing, useless as a secret. */
const DISPLAY_LENGTH = 'ps_live.'.length + 6;

export interface NewKey {
  key: string;
  hash: string;
  displayPrefix: string;
  mode: KeyMode;
}

export function generateApiKey(mode: KeyMode): NewKey {
  let secret = '';
  for (let i = 0; i < SECRET_LENGTH; i++) secret += BASE62[randomInt(BASE62.length)];
  const key = `ps_${mode}.${secret}`;
  return { key, hash: hashApiKey(key), displayPrefix: displayPrefixOf(key), mode };
}

export function displayPrefixOf(key: string): string {
  return key.slice(0, DISPLAY_LENGTH);
}

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** The mode of a well-formed key, or null for anything that cannot be a key. */
export function keyShape(text: string): KeyMode | null {
  const match = KEY_SHAPE.exec(text);
  return match ? (match[1] as KeyMode) : null;
}
