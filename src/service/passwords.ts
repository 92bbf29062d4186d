/**
 * Owners' passwords, hashed with scrypt (RFC 7914) from node:crypto: memory-hard, and no native
 * dependency to build. Parameters follow OWASP's Password Storage Cheat Sheet (one of its
 * equivalent scrypt settings: N=2^16, r=8, p=2, i.e. 64 MiB and about a second of one core
 * per hash). They are stored with each hash, so they can be raised later without locking
 * anyone out. At most two hashes run at once: each holds 64 MiB, and a burst of sign-ins must
 * not exhaust memory or the thread pool the rest of the service uses.
 */
import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';

interface ScryptParams {
  log2N: number;
  r: number;
  p: number;
}

const CURRENT: ScryptParams = { log2N: 16, r: 8, p: 2 };
const KEY_BYTES = 32;
const SALT_BYTES = 16;
/** Passwords are bounded so one sign-in costs bounded work; NIST SP 800-63B asks to allow at least 64 characters. */
export const MIN_PASSWORD_LENGTH = 12;
export const MAX_PASSWORD_LENGTH = 256;

let running = 0;
const waiting: Array<() => void> = [];
const MAX_CONCURRENT = 2;

async function gated<T>(fn: () => Promise<T>): Promise<T> {
  if (running >= MAX_CONCURRENT) await new Promise<void>((resolve) => waiting.push(resolve));
  running += 1;
  try {
    return await fn();
  } finally {
    running -= 1;
    waiting.shift()?.();
  }
}

function derive(password: string, salt: Buffer, params: ScryptParams): Promise<Buffer> {
  const N = 2 ** params.log2N;
  return gated(
    () =>
      new Promise<Buffer>((resolve, reject) => {
        // maxmem must exceed 128·N·r·p bytes, or node refuses the parameters.
        scrypt(password.normalize('NFKC'), salt, KEY_BYTES, { N, r: params.r, p: params.p, maxmem: 256 * N * params.r * params.p }, (err, key) =>
          err ? reject(err) : resolve(key),
        );
      }),
  );
}

/** Why a new password is refused, or null when it is acceptable. */
export function passwordProblem(password: string): string | null {
  if ([...password].length < MIN_PASSWORD_LENGTH) return `Use at least ${MIN_PASSWORD_LENGTH} characters.`;
  if ([...password].length > MAX_PASSWORD_LENGTH) return `Use at most ${MAX_PASSWORD_LENGTH} characters.`;
  return null;
}

/** `scrypt$log2N$r$p$salt$hash`, salt and hash in base64. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const key = await derive(password, salt, CURRENT);
  return ['scrypt', CURRENT.log2N, CURRENT.r, CURRENT.p, salt.toString('base64'), key.toString('base64')].join('$');
}

function parse(stored: string): { params: ScryptParams; salt: Buffer; key: Buffer } | null {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return null;
  const [log2N, r, p] = parts.slice(1, 4).map(Number);
  if (!log2N || !r || !p || log2N > 24) return null;
  return { params: { log2N, r, p }, salt: Buffer.from(parts[4] ?? '', 'base64'), key: Buffer.from(parts[5] ?? '', 'base64') };
}

/** A stored hash to compare against when the email is unknown, so the answer takes as long either way. */
let decoy: Promise<string> | null = null;

/** True when `password` matches `stored`. A null `stored` (unknown email, or no password set yet) still costs one hash and is false. */
export async function verifyPassword(password: string, stored: string | null): Promise<boolean> {
  const parsed = parse(stored ?? (await (decoy ??= hashPassword(randomBytes(16).toString('hex')))));
  if (!parsed) return false;
  const key = await derive(password.slice(0, MAX_PASSWORD_LENGTH * 4), parsed.salt, parsed.params);
  return stored !== null && key.length === parsed.key.length && timingSafeEqual(key, parsed.key);
}
