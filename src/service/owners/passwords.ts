/**
 * Owners' passwords, hashed with scrypt (RFC 7914) from node:crypto: memory-hard, and no native
 * dependency to build. Parameters follow OWASP's Password Storage Cheat Sheet (one of its
 * equivalent scrypt settings: N=2^16, r=8, p=2, i.e. 64 MiB and about a second of one core
 * per hash). They are stored with each hash, so they can be raised later without locking
 * anyone out. Hashes run through a bounded, fair gate (below).
 */
import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import { FairGate } from './fair-gate.js';

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

/**
 * Every hash goes through this gate: two at once (each holds 64 MiB, and a burst of sign-ins must
 * not exhaust memory or the thread pool the rest of the service uses), client addresses served in
 * turn, and a bounded wait: a sign-in past it is refused as throttled instead of queued, so a
 * flood from one address (or many) neither grows memory nor keeps a real owner waiting behind it.
 */
const gate = new FairGate({ concurrency: 2, perKey: 2, total: 32 });

function derive(password: string, salt: Buffer, params: ScryptParams): Promise<Buffer> {
  const N = 2 ** params.log2N;
  return new Promise<Buffer>((resolve, reject) => {
    // maxmem must exceed 128·N·r·p bytes, or node refuses the parameters.
    scrypt(password.normalize('NFKC'), salt, KEY_BYTES, { N, r: params.r, p: params.p, maxmem: 256 * N * params.r * params.p }, (err, key) =>
      err ? reject(err) : resolve(key),
    );
  });
}

/** Why a new password is refused, or null when it is acceptable. */
export function passwordProblem(password: string): string | null {
  if ([...password].length < MIN_PASSWORD_LENGTH) return `Use at least ${MIN_PASSWORD_LENGTH} characters.`;
  if ([...password].length > MAX_PASSWORD_LENGTH) return `Use at most ${MAX_PASSWORD_LENGTH} characters.`;
  return null;
}

/** `scrypt$log2N$r$p$salt$hash`, salt and hash in base64, made through `run` (the gate's turn). */
async function makeHash(password: string, run: (derive: () => Promise<Buffer>) => Promise<Buffer> | null): Promise<string | null> {
  const salt = randomBytes(SALT_BYTES);
  const hashing = run(() => derive(password, salt, CURRENT));
  if (!hashing) return null;
  const key = await hashing;
  return ['scrypt', CURRENT.log2N, CURRENT.r, CURRENT.p, salt.toString('base64'), key.toString('base64')].join('$');
}

/** The stored form of a new password, hashed in `clientKey`'s turn; null when the hashing queue was full and nothing was hashed. */
export function hashPassword(password: string, clientKey: string): Promise<string | null> {
  return makeHash(password, (job) => gate.offer(clientKey, job));
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

/** How a password check ended: `busy` when the hashing queue was full and nothing was checked. */
export type PasswordCheck = 'match' | 'mismatch' | 'busy';

/**
 * Whether `password` matches `stored`, hashed in `clientKey`'s turn (the client address). A null
 * `stored` (unknown email, or no password set yet) still costs one hash and is a mismatch.
 */
export async function verifyPassword(password: string, stored: string | null, clientKey: string): Promise<PasswordCheck> {
  // Made once per process, in a turn of its own that is never refused.
  const parsed = parse(stored ?? (await (decoy ??= makeHash(randomBytes(16).toString('hex'), (job) => gate.queue('decoy', job)) as Promise<string>)));
  if (!parsed) return 'mismatch';
  const hashing = gate.offer(clientKey, () => derive(password.slice(0, MAX_PASSWORD_LENGTH * 4), parsed.salt, parsed.params));
  if (!hashing) return 'busy';
  const key = await hashing;
  return stored !== null && key.length === parsed.key.length && timingSafeEqual(key, parsed.key) ? 'match' : 'mismatch';
}
