-- Only running checks are ever looked up by state (the stale-check cleanup): a partial index
-- keeps finished ones out of it, so completing a check no longer moves an index entry.
DROP INDEX IF EXISTS verifications_state;
CREATE INDEX verifications_running ON verifications(created_at) WHERE state = 'running';
