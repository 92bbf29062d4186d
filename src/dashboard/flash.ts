/**
 * One-time messages after a redirect (post/redirect/get), shown on whichever node serves the
 * next page: the message is kept in the session row in the store, sealed with AES-256-GCM
 * under a key that only the browser holds, in a short-lived HttpOnly cookie. So a new API key
 * can be shown once after its creation without ever lying in the database readable: the row
 * alone, or the cookie alone, reveals nothing; reading it clears both.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { OwnerSessionsRole } from '../store/roles/owner-sessions.js';
import type { Flash } from './layout.js';

export const FLASH_COOKIE = 'presend_flash';
const COOKIE = { path: '/dashboard', httpOnly: true, sameSite: 'lax' as const, secure: 'auto' as const };

function seal(flash: Flash, key: Buffer): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const body = Buffer.concat([cipher.update(JSON.stringify(flash), 'utf8'), cipher.final()]);
  return [iv, cipher.getAuthTag(), body].map((b) => b.toString('base64url')).join('.');
}

function open(sealed: string, key: Buffer): Flash | null {
  try {
    const [iv, tag, body] = sealed.split('.').map((p) => Buffer.from(p, 'base64url'));
    if (!iv || !tag || !body) return null;
    const decipher = createDecipheriv('aes-256-gcm', key, iv);
    decipher.setAuthTag(tag);
    return JSON.parse(Buffer.concat([decipher.update(body), decipher.final()]).toString('utf8')) as Flash;
  } catch {
    return null;
  }
}

export async function setFlash(sessions: OwnerSessionsRole, request: FastifyRequest, reply: FastifyReply, flash: Flash): Promise<void> {
  if (!request.owner) return;
  const key = randomBytes(32);
  await sessions.setFlash(request.owner.idHash, seal(flash, key));
  void reply.setCookie(FLASH_COOKIE, key.toString('base64url'), { ...COOKIE, maxAge: 300 });
}

/** The flash waiting for this page, read once. */
export async function takeFlash(sessions: OwnerSessionsRole, request: FastifyRequest, reply: FastifyReply): Promise<Flash | null> {
  const cookie = request.cookies[FLASH_COOKIE];
  if (!request.owner || !cookie) return null;
  void reply.clearCookie(FLASH_COOKIE, COOKIE);
  if (!request.owner.flash) return null;
  const sealed = await sessions.takeFlash(request.owner.idHash);
  return sealed ? open(sealed, Buffer.from(cookie, 'base64url')) : null;
}
