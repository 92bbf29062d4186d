-- A single check (POST /v1/verify) is leased by the process running it and renewed while it
-- runs; once the lease lapses (the process died), any serving process resumes the check.
ALTER TABLE verifications ADD COLUMN lease_expires_at TIMESTAMPTZ;
-- Checks left running by a version without leases are resumed at once.
UPDATE verifications SET lease_expires_at = created_at WHERE state = 'running';
-- Only running checks are looked up by lease.
CREATE INDEX verifications_leases ON verifications(lease_expires_at) WHERE state = 'running';
