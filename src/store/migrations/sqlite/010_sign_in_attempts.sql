-- Sign-in attempts are reserved before the password is hashed, not recorded after it (issue 21):
-- the count and the reservation are one transaction serialised per scope on its `login_scopes`
-- row (locked FOR UPDATE on PostgreSQL; SQLite has one writer), so attempts fired at once cannot
-- all pass the limit. A reservation is a `login_failures` row named by its `attempt`; a sign-in
-- that succeeds deletes its own rows. Rows older than a day are purged with the retention.
CREATE TABLE login_scopes (
  scope TEXT PRIMARY KEY
);
ALTER TABLE login_failures ADD COLUMN attempt TEXT;
CREATE INDEX login_failures_attempt ON login_failures(attempt);
CREATE INDEX login_failures_age ON login_failures(failed_at);
