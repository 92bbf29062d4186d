-- A single check (POST /v1/verify) is leased by the process running it and renewed while it
-- runs; once the lease lapses (the process died), the serving process resumes the check.
ALTER TABLE verifications ADD COLUMN lease_expires_at TEXT;
-- Checks left running by a version without leases are resumed at once.
UPDATE verifications SET lease_expires_at = created_at WHERE state = 'running';
-- Found through verifications_running (003): only running checks are in it.
