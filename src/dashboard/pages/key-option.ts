/** One API key as a choice of a form's key menu (batches, "Try an address"): its mode, display prefix and label. */
import { html } from 'ghtml';
import type { ApiKeyRecord } from '../../store/roles/key-management.js';

export function keyOption(k: ApiKeyRecord, selected: boolean): string {
  return html`<option value="${k.id}"!${selected ? ' selected' : ''}>${k.mode === 'test' ? 'Sandbox' : 'Live'} key ${k.displayPrefix}…${k.label ? ` (${k.label})` : ''}</option>`;
}
