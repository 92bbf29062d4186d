/**
 * Keys an owner creates and revokes from the dashboard (docs/design.md §3, §7): the key is returned
 * once, here, and never again; the store keeps its hash, display prefix and label, and records
 * who did what in the audit trail.
 */
import type { ApiKeyRecord, KeyActor, KeyManagementRole } from '../../store/roles/key-management.js';
import type { KeyMode } from '../../store/api-keys.js';
import { generateApiKey } from './key-format.js';

export const MAX_LABEL_LENGTH = 100;

/** A label as stored: trimmed, control characters dropped, bounded; null when blank. */
export function cleanLabel(raw: string | undefined): string | null {
  // eslint-disable-next-line no-control-regex -- removing control characters is the point
  const text = (raw ?? '').replace(/[\u0000-\u001f\u007f]/g, ' ').trim();
  return text === '' ? null : [...text].slice(0, MAX_LABEL_LENGTH).join('');
}

export async function createOwnerKey(
  keys: KeyManagementRole,
  input: { accountId: string; mode: KeyMode; label: string | null; actor: KeyActor; now: Date },
): Promise<{ key: string; record: ApiKeyRecord }> {
  const made = generateApiKey(input.mode);
  const record = await keys.createKey({ accountId: input.accountId, hash: made.hash, displayPrefix: made.displayPrefix, mode: input.mode, label: input.label, actor: input.actor, now: input.now });
  return { key: made.key, record };
}

/** Revokes one key of the account, recording who did it; null for an unknown id or another account's key. */
export function revokeOwnerKey(keys: KeyManagementRole, input: { accountId: string; keyId: string; actor: KeyActor; now: Date }): Promise<ApiKeyRecord | null> {
  return keys.revokeKey(input);
}
