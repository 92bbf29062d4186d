-- How each check reached its verdict (docs/evidence.md): one row per single check (check_id: the
-- verification's id) or per batch item (check_id: the request's id), its evidence as JSON. A
-- recheck replaces the row. Purged with the check: single checks with the verifications past the
-- result retention (kind 'check', by recorded_at), batch items with their request
-- (src/store/roles/retention.ts).
CREATE TABLE check_evidence (
  check_id TEXT NOT NULL,
  email TEXT NOT NULL,
  account_id TEXT NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('check', 'item')),
  recorded_at TIMESTAMPTZ NOT NULL,
  evidence TEXT NOT NULL,
  PRIMARY KEY (check_id, email)
);
CREATE INDEX check_evidence_age ON check_evidence(kind, recorded_at);
