/**
 * How the other verifiers' outputs map to Presend's verdict vocabulary (docs/design.md §5), for the
 * accuracy column of benchmark 2. Only what their output says is used — an address is not
 * called ROLE or CATCH_ALL on their behalf when they did not say so.
 */
import type { PublicVerdict } from '../src/core/types.js';

/** deep-email-validator 0.1.x: `{ valid, reason?, validators: { regex, typo, disposable, mx, smtp } }`. */
export interface DeepEmailValidatorOutput {
  valid: boolean;
  reason?: string;
  validators: Partial<Record<string, { valid: boolean; reason?: string }>>;
}

export function mapDeepEmailValidator(out: DeepEmailValidatorOutput): PublicVerdict {
  if (out.valid) return 'DELIVERABLE';
  const why = out.validators[out.reason ?? '']?.reason ?? '';
  switch (out.reason) {
    case 'disposable':
      return 'DISPOSABLE';
    case 'mx':
      return 'UNDELIVERABLE_NO_MAIL_SERVER';
    case 'smtp':
      // Its messages per reply code (checkSMTP's ErrorCodes): 550 "Mailbox not found.",
      // 551/553 not local / bad address, 552 and 452 out of space or storage, 450 busy.
      if (/Mailbox not found|not local|not syntactically correct/.test(why)) return 'UNDELIVERABLE_NO_MAILBOX';
      if (/run out of space|ran out of system storage/.test(why)) return 'MAILBOX_FULL';
      if (/mailbox that you are trying to reach is busy/.test(why)) return 'GREYLISTED';
      if (/Timeout|closed connection|unexpectedly closed|shut down|not done/.test(why)) return 'TRANSIENT';
      return 'UNKNOWN';
    default:
      // regex and typo failures carry no deliverability verdict.
      return 'UNKNOWN';
  }
}

/** email-deep-validator 3.x: `{ wellFormed, validDomain, validMailbox }` with null for "could not tell". */
export interface EmailDeepValidatorOutput {
  wellFormed: boolean;
  validDomain: boolean | null;
  validMailbox: boolean | null;
}

export function mapEmailDeepValidator(out: EmailDeepValidatorOutput): PublicVerdict {
  if (!out.wellFormed) return 'UNKNOWN';
  if (out.validDomain === false) return 'UNDELIVERABLE_NO_MAIL_SERVER';
  if (out.validMailbox === true) return 'DELIVERABLE';
  if (out.validMailbox === false) return 'UNDELIVERABLE_NO_MAILBOX';
  return 'UNKNOWN';
}

export const MAPPING_TABLE: ReadonlyArray<readonly [string, string, string]> = [
  ['deep-email-validator', '`valid: true`', 'DELIVERABLE'],
  ['deep-email-validator', '`reason: "disposable"`', 'DISPOSABLE'],
  ['deep-email-validator', '`reason: "mx"`', 'UNDELIVERABLE_NO_MAIL_SERVER'],
  ['deep-email-validator', '`reason: "smtp"`, 550 / 551 / 553 message', 'UNDELIVERABLE_NO_MAILBOX'],
  ['deep-email-validator', '`reason: "smtp"`, 452 / 552 message', 'MAILBOX_FULL'],
  ['deep-email-validator', '`reason: "smtp"`, 450 message', 'GREYLISTED'],
  ['deep-email-validator', '`reason: "smtp"`, timeout, closed connection, 421, 451', 'TRANSIENT'],
  ['deep-email-validator', 'any other `smtp` message, `regex`, `typo`', 'UNKNOWN'],
  ['email-deep-validator', '`validDomain: false`', 'UNDELIVERABLE_NO_MAIL_SERVER'],
  ['email-deep-validator', '`validMailbox: true`', 'DELIVERABLE'],
  ['email-deep-validator', '`validMailbox: false`', 'UNDELIVERABLE_NO_MAILBOX'],
  ['email-deep-validator', '`validMailbox: null`, `wellFormed: false`', 'UNKNOWN'],
];
