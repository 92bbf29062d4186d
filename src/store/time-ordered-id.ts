/**
 * Roles: verifications (check ids). UUIDv7 (RFC 9562 §5.7): 48 bits of Unix milliseconds, then random bits. Checks and requests
 * are created in time order, so their ids land at the end of the primary-key index instead of
 * on a random leaf page — one page fewer dirtied by each insert's commit.
 */
import { randomUUID } from 'node:crypto';

export function timeOrderedId(nowMs: number = Date.now()): string {
  const time = nowMs.toString(16).padStart(12, '0');
  // randomUUID(): xxxxxxxx-xxxx-4xxx-Vxxx-xxxxxxxxxxxx; keep its random bits and variant from index 15.
  return `${time.slice(0, 8)}-${time.slice(8, 12)}-7${randomUUID().slice(15)}`;
}
