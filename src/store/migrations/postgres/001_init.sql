-- Presend store, PostgreSQL flavour: the same tables as the SQLite flavour, with real types.
-- Credits: accounts carry running totals (granted, debited, held) updated in the same
-- transaction as the append-only credit_ledger row that explains them; a hold is taken with
-- a conditional UPDATE (… WHERE available >= n), so two API nodes can never overdraw.
-- Results are kept as JSON text, not jsonb, so an envelope comes back with its fields in the
-- order they were written.

CREATE TABLE accounts (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL UNIQUE,
  created_at TIMESTAMPTZ NOT NULL,
  rate_limit_per_second INTEGER,
  rate_limit_burst INTEGER,
  credits_granted BIGINT NOT NULL DEFAULT 0,
  credits_debited BIGINT NOT NULL DEFAULT 0,
  credits_held BIGINT NOT NULL DEFAULT 0,
  CHECK (credits_held >= 0)
);

CREATE TABLE credit_ledger (
  id BIGSERIAL PRIMARY KEY,
  account_id TEXT NOT NULL REFERENCES accounts(id),
  kind TEXT NOT NULL CHECK (kind IN ('grant', 'hold', 'debit', 'release')),
  credits BIGINT NOT NULL CHECK (credits >= 0),
  request_id TEXT,
  verification_id TEXT,
  created_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX credit_ledger_account ON credit_ledger(account_id);

CREATE TABLE api_keys (
  id TEXT PRIMARY KEY,
  account_id TEXT NOT NULL REFERENCES accounts(id),
  hash TEXT NOT NULL UNIQUE,
  display_prefix TEXT NOT NULL,
  mode TEXT NOT NULL CHECK (mode IN ('live', 'test')),
  created_at TIMESTAMPTZ NOT NULL,
  revoked_at TIMESTAMPTZ
);
CREATE INDEX api_keys_account ON api_keys(account_id);

-- Token buckets shared by every API node (DESIGN.md §4 rate limits).
CREATE TABLE rate_buckets (
  key_id TEXT PRIMARY KEY,
  tokens DOUBLE PRECISION NOT NULL,
  updated_ms BIGINT NOT NULL
);

CREATE TABLE lists (
  id TEXT PRIMARY KEY,
  account_id TEXT NOT NULL REFERENCES accounts(id),
  name TEXT,
  state TEXT NOT NULL CHECK (state IN ('importing', 'ready', 'failed')),
  entries INTEGER NOT NULL DEFAULT 0,
  created_at TIMESTAMPTZ NOT NULL
);

CREATE TABLE list_entries (
  list_id TEXT NOT NULL REFERENCES lists(id) ON DELETE CASCADE,
  position INTEGER NOT NULL,
  email TEXT NOT NULL,
  PRIMARY KEY (list_id, position)
);

-- Claimed with INSERT … ON CONFLICT DO NOTHING: a racing identical request waits for the
-- first one's transaction and then replays it.
CREATE TABLE idempotency_records (
  account_id TEXT NOT NULL,
  route TEXT NOT NULL,
  key TEXT NOT NULL,
  body_hash TEXT NOT NULL,
  target_id TEXT NOT NULL,
  created_at TIMESTAMPTZ NOT NULL,
  expires_at TIMESTAMPTZ NOT NULL,
  PRIMARY KEY (account_id, route, key)
);
CREATE INDEX idempotency_expiry ON idempotency_records(expires_at);

CREATE TABLE verifications (
  id TEXT PRIMARY KEY,
  account_id TEXT NOT NULL REFERENCES accounts(id),
  key_id TEXT NOT NULL,
  email TEXT NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('running', 'completed', 'failed')),
  billable BOOLEAN NOT NULL,
  billing TEXT NOT NULL CHECK (billing IN ('none', 'held', 'debited', 'released')),
  result_json TEXT,
  created_at TIMESTAMPTZ NOT NULL,
  finished_at TIMESTAMPTZ
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
  sandbox BOOLEAN NOT NULL,
  total INTEGER NOT NULL,
  unique_count INTEGER NOT NULL,
  -- last final sequence number handed out; items get final_seq = final_count + 1
  final_count INTEGER NOT NULL DEFAULT 0,
  open_count INTEGER NOT NULL,
  created_at TIMESTAMPTZ NOT NULL,
  finalized_at TIMESTAMPTZ,
  finalization_json TEXT,
  retention_expires_at TIMESTAMPTZ
);
CREATE INDEX requests_retention ON requests(retention_expires_at);
CREATE INDEX requests_open ON requests(created_at, id) WHERE state IN ('queued', 'running');

-- One row per unique address of a request.
-- state: pending → claimed → (recheck → claimed)* → final
-- Workers lease rows with SELECT … FOR UPDATE SKIP LOCKED, so two workers never take one item.
CREATE TABLE items (
  id BIGSERIAL PRIMARY KEY,
  request_id TEXT NOT NULL REFERENCES requests(id) ON DELETE CASCADE,
  email TEXT NOT NULL,
  domain TEXT NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('pending', 'claimed', 'recheck', 'final')),
  billing TEXT NOT NULL CHECK (billing IN ('none', 'held', 'debited', 'released')),
  claimed_by TEXT,
  lease_expires_at TIMESTAMPTZ,
  affinity TEXT,
  not_before TIMESTAMPTZ,
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
CREATE INDEX items_pending ON items(request_id, domain, id) WHERE state = 'pending';
CREATE INDEX items_claimed ON items(lease_expires_at) WHERE state = 'claimed';
CREATE INDEX items_recheck ON items(not_before) WHERE state = 'recheck';
CREATE INDEX items_open ON items(request_id) WHERE state <> 'final';

CREATE TABLE address_history (
  account_id TEXT NOT NULL,
  email TEXT NOT NULL,
  checks INTEGER NOT NULL,
  first_checked_at TIMESTAMPTZ NOT NULL,
  last_checked_at TIMESTAMPTZ NOT NULL,
  last_verdict TEXT,
  PRIMARY KEY (account_id, email)
);

-- Per-MX politeness shared by every worker: one row per occupied session slot. A slot is
-- taken with INSERT … ON CONFLICT DO UPDATE … WHERE the old lease expired, renewed while the
-- session lives, and deleted on release; a dead worker's slots free themselves at expiry.
CREATE TABLE mx_session_slots (
  host TEXT NOT NULL,
  slot INTEGER NOT NULL,
  holder TEXT NOT NULL,
  lease_expires_at TIMESTAMPTZ NOT NULL,
  PRIMARY KEY (host, slot)
);

-- Domain facts (MX sets, catch-all status) shared by every worker, with a TTL.
CREATE TABLE facts_cache (
  key TEXT PRIMARY KEY,
  value_json TEXT NOT NULL,
  expires_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX facts_cache_expiry ON facts_cache(expires_at);
