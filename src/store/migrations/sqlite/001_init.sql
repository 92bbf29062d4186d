-- Presend store, SQLite flavour. Times are ISO-8601 UTC strings (they sort as text).
-- Credits: accounts carry running totals (granted, debited, held) updated in the same
-- transaction as the append-only credit_ledger row that explains them.

CREATE TABLE accounts (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL UNIQUE,
  created_at TEXT NOT NULL,
  rate_limit_per_second INTEGER,
  rate_limit_burst INTEGER,
  credits_granted INTEGER NOT NULL DEFAULT 0,
  credits_debited INTEGER NOT NULL DEFAULT 0,
  credits_held INTEGER NOT NULL DEFAULT 0
);

CREATE TABLE credit_ledger (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  account_id TEXT NOT NULL REFERENCES accounts(id),
  kind TEXT NOT NULL CHECK (kind IN ('grant', 'hold', 'debit', 'release')),
  credits INTEGER NOT NULL CHECK (credits >= 0),
  request_id TEXT,
  verification_id TEXT,
  created_at TEXT NOT NULL
);
CREATE INDEX credit_ledger_account ON credit_ledger(account_id);

CREATE TABLE api_keys (
  id TEXT PRIMARY KEY,
  account_id TEXT NOT NULL REFERENCES accounts(id),
  hash TEXT NOT NULL UNIQUE,
  display_prefix TEXT NOT NULL,
  mode TEXT NOT NULL CHECK (mode IN ('live', 'test')),
  created_at TEXT NOT NULL,
  revoked_at TEXT
);
CREATE INDEX api_keys_account ON api_keys(account_id);

CREATE TABLE rate_buckets (
  key_id TEXT PRIMARY KEY,
  tokens REAL NOT NULL,
  updated_ms INTEGER NOT NULL
);

CREATE TABLE lists (
  id TEXT PRIMARY KEY,
  account_id TEXT NOT NULL REFERENCES accounts(id),
  name TEXT,
  state TEXT NOT NULL CHECK (state IN ('importing', 'ready', 'failed')),
  entries INTEGER NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL
);

CREATE TABLE list_entries (
  list_id TEXT NOT NULL REFERENCES lists(id) ON DELETE CASCADE,
  position INTEGER NOT NULL,
  email TEXT NOT NULL,
  PRIMARY KEY (list_id, position)
);

CREATE TABLE idempotency_records (
  account_id TEXT NOT NULL,
  route TEXT NOT NULL,
  key TEXT NOT NULL,
  body_hash TEXT NOT NULL,
  target_id TEXT NOT NULL,
  created_at TEXT NOT NULL,
  expires_at TEXT NOT NULL,
  PRIMARY KEY (account_id, route, key)
);
CREATE INDEX idempotency_expiry ON idempotency_records(expires_at);

CREATE TABLE verifications (
  id TEXT PRIMARY KEY,
  account_id TEXT NOT NULL REFERENCES accounts(id),
  key_id TEXT NOT NULL,
  email TEXT NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('running', 'completed', 'failed')),
  billable INTEGER NOT NULL,
  billing TEXT NOT NULL CHECK (billing IN ('none', 'held', 'debited', 'released')),
  result_json TEXT,
  created_at TEXT NOT NULL,
  finished_at TEXT
);
CREATE INDEX verifications_state ON verifications(state, created_at);

CREATE TABLE requests (
  id TEXT PRIMARY KEY,
  account_id TEXT NOT NULL REFERENCES accounts(id),
  key_id TEXT NOT NULL,
  mode TEXT NOT NULL CHECK (mode IN ('emails', 'list')),
  list_id TEXT,
  state TEXT NOT NULL CHECK (state IN ('queued', 'running', 'completed', 'failed')),
  error_code TEXT,
  sandbox INTEGER NOT NULL,
  total INTEGER NOT NULL,
  unique_count INTEGER NOT NULL,
  -- last final sequence number handed out; items get final_seq = final_count + 1
  final_count INTEGER NOT NULL DEFAULT 0,
  open_count INTEGER NOT NULL,
  created_at TEXT NOT NULL,
  finalized_at TEXT,
  finalization_json TEXT,
  retention_expires_at TEXT
);
CREATE INDEX requests_retention ON requests(retention_expires_at);

-- One row per unique address of a request.
-- state: pending → claimed → (recheck → claimed)* → final
CREATE TABLE items (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  request_id TEXT NOT NULL REFERENCES requests(id) ON DELETE CASCADE,
  email TEXT NOT NULL,
  domain TEXT NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('pending', 'claimed', 'recheck', 'final')),
  billing TEXT NOT NULL CHECK (billing IN ('none', 'held', 'debited', 'released')),
  claimed_by TEXT,
  lease_expires_at TEXT,
  affinity TEXT,
  not_before TEXT,
  attempts INTEGER NOT NULL DEFAULT 0,
  rechecks INTEGER NOT NULL DEFAULT 0,
  final_seq INTEGER,
  envelope_status TEXT,
  decision TEXT,
  verdict TEXT,
  result_json TEXT,
  UNIQUE (request_id, email),
  UNIQUE (request_id, final_seq)
);
CREATE INDEX items_work ON items(state, request_id, domain);

CREATE TABLE address_history (
  account_id TEXT NOT NULL,
  email TEXT NOT NULL,
  checks INTEGER NOT NULL,
  first_checked_at TEXT NOT NULL,
  last_checked_at TEXT NOT NULL,
  last_verdict TEXT,
  PRIMARY KEY (account_id, email)
);
