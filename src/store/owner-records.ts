/**
 * Records of the dashboard's roles (src/store/backend.ts: users, owner sessions, login
 * throttling, key management, list files, account views). Times are ISO-8601 strings, as
 * everywhere in the store.
 */
import type { PreSendDecision, PublicVerdict } from '../core/types.js';
import type { ListState, RequestMode, RequestState } from './store.js';

/** An owner: a person who signs in to an account's dashboard (docs/design.md §7). */
export interface OwnerUser {
  id: string;
  accountId: string;
  /** Lower-cased; unique over all accounts. */
  email: string;
  createdAt: string;
  /** Null until the one-time link has been used. */
  passwordSetAt: string | null;
}

/** With the stored password hash, for signing in only. */
export interface OwnerCredentials extends OwnerUser {
  passwordHash: string | null;
}

export type PasswordTokenPurpose = 'set' | 'reset';

/** A live signed-in session, with its user and account. */
export interface OwnerSession {
  idHash: string;
  user: OwnerUser;
  accountName: string;
  /** Secret the session's form tokens are made from (synchroniser token, src/dashboard/csrf.ts). */
  csrfSecret: string;
  createdAt: string;
  lastSeenAt: string;
  expiresAt: string;
  /** A one-time message, still encrypted (src/dashboard/flash.ts), or null. */
  flash: string | null;
}

export interface KeyEvent {
  id: string;
  keyId: string;
  displayPrefix: string;
  action: 'created' | 'revoked';
  /** The owner's email at the time, or the admin command that did it. */
  actor: string;
  at: string;
}

/** Who acts on a key: recorded in the audit trail. */
export interface KeyActor {
  /** The owner's email, or e.g. "admin command (presend keys)". */
  name: string;
}

/** One column an owner can pick as the address column of an uploaded file. */
export interface ColumnChoice {
  /** 0-based. */
  index: number;
  /** The header cell, or "column N" when the file has no header. */
  label: string;
  /** A few cells of the column, to recognise it by. */
  samples: string[];
}

/** The file a list was uploaded from. */
export interface ListFile {
  listId: string;
  accountId: string;
  fileName: string;
  sizeBytes: number;
  /** The layout the reader found (src/files), as JSON; null until the file's head was read. */
  layoutJson: string | null;
  /** Set while the owner has to pick the address column; null otherwise. */
  columnChoices: ColumnChoice[] | null;
  badRows: number;
  /** Why the file could not be read, and where; null when it could. */
  error: string | null;
  errorLine: number | null;
  uploadedBy: string;
  createdAt: string;
}

/** A row of an uploaded file whose address cell is empty or not an address. */
export interface BadRow {
  line: number;
  value: string;
  problem: string;
}

/** A list with the file it came from, if any. */
export interface ListOverview {
  id: string;
  name: string | null;
  state: ListState;
  entries: number;
  createdAt: string;
  file: ListFile | null;
}

/** A batch request as listed on the batches page (counters: batches.get). */
export interface RequestSummary {
  id: string;
  mode: RequestMode;
  listId: string | null;
  state: RequestState;
  sandbox: boolean;
  total: number;
  unique: number;
  /** Items final so far. */
  final: number;
  createdAt: string;
  finalizedAt: string | null;
  /** A list batch whose list is still being copied into its items: the rows copied so far; null otherwise. */
  listRowsWritten: number | null;
}

export interface VerdictCount {
  verdict: PublicVerdict | null;
  decision: PreSendDecision | null;
  count: number;
}

export type LedgerKind = 'grant' | 'hold' | 'debit' | 'release';

export interface LedgerEntry {
  id: number;
  kind: LedgerKind;
  credits: number;
  requestId: string | null;
  verificationId: string | null;
  createdAt: string;
}
