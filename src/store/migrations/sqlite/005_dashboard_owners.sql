-- The dashboard (DESIGN.md §7): owners who sign in, their sessions, login throttling, key labels
-- and last use, the key audit trail, and the files lists were uploaded from.

-- Owners: users of an account. An email names one user over all accounts, so signing in names
-- the account. password_hash is null until the one-time link has been used.
CREATE TABLE users (
  id TEXT PRIMARY KEY,
  account_id TEXT NOT NULL REFERENCES accounts(id),
  email TEXT NOT NULL UNIQUE,
  password_hash TEXT,
  created_at TEXT NOT NULL,
  password_set_at TEXT
);
CREATE INDEX users_account ON users(account_id);

-- One-time links to set or reset a password: only the SHA-256 of the token is kept.
CREATE TABLE password_tokens (
  token_hash TEXT PRIMARY KEY,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  purpose TEXT NOT NULL CHECK (purpose IN ('set', 'reset')),
  created_at TEXT NOT NULL,
  expires_at TEXT NOT NULL,
  used_at TEXT
);
CREATE INDEX password_tokens_user ON password_tokens(user_id);

-- Signed-in sessions, kept in the store so every API node honours them. Only the SHA-256 of
-- the cookie's token is kept; csrf_secret signs the forms of the session (synchroniser token);
-- flash is a one-time message, encrypted with a key only the browser holds.
CREATE TABLE owner_sessions (
  id_hash TEXT PRIMARY KEY,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  csrf_secret TEXT NOT NULL,
  created_at TEXT NOT NULL,
  last_seen_at TEXT NOT NULL,
  expires_at TEXT NOT NULL,
  flash TEXT
);
CREATE INDEX owner_sessions_user ON owner_sessions(user_id);

-- Failed sign-ins per scope (an email or a client address), counted over a sliding window.
CREATE TABLE login_failures (
  scope TEXT NOT NULL,
  failed_at TEXT NOT NULL
);
CREATE INDEX login_failures_scope ON login_failures(scope, failed_at);

ALTER TABLE api_keys ADD COLUMN label TEXT;
ALTER TABLE api_keys ADD COLUMN last_used_at TEXT;

-- Who created or revoked which key, and when. actor is the owner's email at the time.
CREATE TABLE key_events (
  id TEXT PRIMARY KEY,
  account_id TEXT NOT NULL REFERENCES accounts(id),
  key_id TEXT NOT NULL,
  display_prefix TEXT NOT NULL,
  action TEXT NOT NULL CHECK (action IN ('created', 'revoked')),
  actor TEXT NOT NULL,
  at TEXT NOT NULL
);
CREATE INDEX key_events_account ON key_events(account_id, at);

-- The file a list was uploaded from, kept so a batch's results can be written back into it.
-- column_choices is set while the owner must pick the address column; error/error_line when
-- the file could not be read.
CREATE TABLE list_files (
  list_id TEXT PRIMARY KEY REFERENCES lists(id) ON DELETE CASCADE,
  account_id TEXT NOT NULL REFERENCES accounts(id),
  file_name TEXT NOT NULL,
  size_bytes INTEGER NOT NULL DEFAULT 0,
  layout_json TEXT,
  column_choices_json TEXT,
  bad_rows INTEGER NOT NULL DEFAULT 0,
  error TEXT,
  error_line INTEGER,
  uploaded_by TEXT NOT NULL,
  created_at TEXT NOT NULL
);

-- The file's bytes in order, base64 text (the query interface carries text, not bytes).
CREATE TABLE list_file_chunks (
  list_id TEXT NOT NULL REFERENCES list_files(list_id) ON DELETE CASCADE,
  seq INTEGER NOT NULL,
  data TEXT NOT NULL,
  PRIMARY KEY (list_id, seq)
);

-- Rows whose address cell is empty or not an address, with the file's line number.
CREATE TABLE list_bad_rows (
  list_id TEXT NOT NULL REFERENCES list_files(list_id) ON DELETE CASCADE,
  line INTEGER NOT NULL,
  value TEXT NOT NULL,
  problem TEXT NOT NULL,
  PRIMARY KEY (list_id, line)
);

-- The overview's 30 days of usage and the usage page read an account's ledger by time.
CREATE INDEX credit_ledger_account_time ON credit_ledger(account_id, created_at);
-- The batches page lists an account's requests, newest first.
CREATE INDEX requests_account_time ON requests(account_id, created_at);
