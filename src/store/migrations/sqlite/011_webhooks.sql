-- Signed webhooks (docs/webhooks.md, Standard Webhooks 1.0): an account's endpoints, the events
-- written in the same transaction as the change they announce (an outbox), and one delivery row
-- per event and endpoint, leased by the node sending it so a node that dies loses nothing.

-- secret: `whsec_` + base64 of the signing key, kept readable because every attempt is signed with
-- it (an HMAC needs the key; unlike an API key it cannot be kept as a hash). previous_secret keeps
-- signing beside the new one until previous_secret_expires_at after a rotation.
CREATE TABLE webhook_endpoints (
  id TEXT PRIMARY KEY,
  account_id TEXT NOT NULL REFERENCES accounts(id),
  url TEXT NOT NULL,
  events TEXT NOT NULL,
  description TEXT,
  secret TEXT NOT NULL,
  previous_secret TEXT,
  previous_secret_expires_at TEXT,
  created_at TEXT NOT NULL,
  disabled_at TEXT,
  disabled_reason TEXT
);
CREATE INDEX webhook_endpoints_account ON webhook_endpoints(account_id);

-- One row per event; (type, subject) is unique so an event is announced once however often the
-- change that raises it is replayed. payload is the exact body every attempt sends.
CREATE TABLE webhook_events (
  id TEXT PRIMARY KEY,
  account_id TEXT NOT NULL REFERENCES accounts(id),
  type TEXT NOT NULL,
  subject TEXT NOT NULL,
  payload TEXT NOT NULL,
  created_at TEXT NOT NULL,
  UNIQUE (type, subject)
);
CREATE INDEX webhook_events_created ON webhook_events(created_at);

-- state: pending (due at next_attempt_at), sending (leased until lease_expires_at), delivered,
-- failed (retries exhausted or the endpoint disabled).
CREATE TABLE webhook_deliveries (
  id TEXT PRIMARY KEY,
  event_id TEXT NOT NULL REFERENCES webhook_events(id) ON DELETE CASCADE,
  endpoint_id TEXT NOT NULL REFERENCES webhook_endpoints(id) ON DELETE CASCADE,
  state TEXT NOT NULL CHECK (state IN ('pending', 'sending', 'delivered', 'failed')),
  attempts INTEGER NOT NULL DEFAULT 0,
  next_attempt_at TEXT,
  lease_owner TEXT,
  lease_expires_at TEXT,
  last_attempt_at TEXT,
  last_status INTEGER,
  last_error TEXT,
  delivered_at TEXT,
  created_at TEXT NOT NULL,
  UNIQUE (event_id, endpoint_id)
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries(next_attempt_at) WHERE state = 'pending';
CREATE INDEX webhook_deliveries_leased ON webhook_deliveries(lease_expires_at) WHERE state = 'sending';
CREATE INDEX webhook_deliveries_endpoint ON webhook_deliveries(endpoint_id, created_at);

-- The requestId of the first 202 a check's caller got, repeated by its `verification.completed` event.
ALTER TABLE verifications ADD COLUMN answered_request_id TEXT;
