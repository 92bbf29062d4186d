-- An account's decision policy (docs/policy.md): one immutable row per version; the highest
-- version is the one in force. No row: the default table (docs/design.md §5), version 0.
-- decisions: JSON object verdict -> decision. Past results keep the decision they were given.
CREATE TABLE decision_policies (
  account_id TEXT NOT NULL REFERENCES accounts(id),
  version INTEGER NOT NULL,
  decisions TEXT NOT NULL,
  min_confidence DOUBLE PRECISION,
  changed_by TEXT NOT NULL,
  changed_at TIMESTAMPTZ NOT NULL,
  PRIMARY KEY (account_id, version)
);
