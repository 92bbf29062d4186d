-- Feedback from real sends (docs/feedback.md): what an account's own mail taught about an address
-- (bounces, deliveries, complaints), kept per account beside address_history and read into the
-- envelope's `history`. An account's feedback shapes only its own checks.

-- The summary a check reads: one row per account and address, changed only by a new event.
CREATE TABLE address_feedback (
  account_id TEXT NOT NULL REFERENCES accounts(id),
  email TEXT NOT NULL,
  last_hard_bounce_at TIMESTAMPTZ,
  last_hard_bounce_code TEXT,
  last_hard_bounce_source TEXT,
  soft_bounces INTEGER NOT NULL DEFAULT 0,
  last_soft_bounce_at TIMESTAMPTZ,
  last_soft_bounce_source TEXT,
  last_delivery_at TIMESTAMPTZ,
  last_delivery_source TEXT,
  complaints INTEGER NOT NULL DEFAULT 0,
  last_complaint_at TIMESTAMPTZ,
  last_complaint_source TEXT,
  PRIMARY KEY (account_id, email)
);

-- Every event taken, once: (account, source, event id) is the provider's or the file's own id, so a
-- replayed webhook or a re-run import adds nothing.
CREATE TABLE feedback_events (
  account_id TEXT NOT NULL REFERENCES accounts(id),
  source TEXT NOT NULL,
  event_id TEXT NOT NULL,
  email TEXT NOT NULL,
  kind TEXT NOT NULL,
  occurred_at TIMESTAMPTZ NOT NULL,
  code TEXT,
  import_id TEXT,
  received_at TIMESTAMPTZ NOT NULL,
  PRIMARY KEY (account_id, source, event_id)
);
CREATE INDEX feedback_events_email ON feedback_events(account_id, email);

-- One row per file import: its counts grow chunk by chunk in the chunk's own transaction.
CREATE TABLE feedback_imports (
  id TEXT PRIMARY KEY,
  account_id TEXT NOT NULL REFERENCES accounts(id),
  source TEXT NOT NULL,
  name TEXT NOT NULL,
  state TEXT NOT NULL,
  events INTEGER NOT NULL DEFAULT 0,
  duplicates INTEGER NOT NULL DEFAULT 0,
  rejected INTEGER NOT NULL DEFAULT 0,
  started_at TIMESTAMPTZ NOT NULL,
  finished_at TIMESTAMPTZ
);

-- An account's inbound sources: the webhook token is kept as its SHA-256 only (shown once).
-- verify_key: what checks the provider's signature (SendGrid's public key, Mailgun's signing key,
-- Postmark's basic-auth user:password), kept readable because every delivery is checked with it.
CREATE TABLE feedback_sources (
  account_id TEXT NOT NULL REFERENCES accounts(id),
  source TEXT NOT NULL,
  token_hash TEXT UNIQUE,
  token_prefix TEXT,
  verify_key TEXT,
  created_at TIMESTAMPTZ NOT NULL,
  events INTEGER NOT NULL DEFAULT 0,
  duplicates INTEGER NOT NULL DEFAULT 0,
  errors INTEGER NOT NULL DEFAULT 0,
  last_event_at TIMESTAMPTZ,
  last_error TEXT,
  last_error_at TIMESTAMPTZ,
  PRIMARY KEY (account_id, source)
);

-- How long a hard bounce (and a delivery) counts for this account's checks.
ALTER TABLE accounts ADD COLUMN feedback_window_days INTEGER NOT NULL DEFAULT 180;
