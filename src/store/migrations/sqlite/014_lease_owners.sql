-- One lease primitive for every kind of leased work (src/store/roles/leases.ts): each lease names
-- its owner (the process's lease keeper, src/service/leases/lease-keeper.ts), so a renewal tells
-- the owner which leases it lost (taken over by another node, or ended) instead of extending them
-- blindly. Leases written before this migration have no owner: their next renewal reports them
-- lost, and they lapse and are taken over (or ended) as any lapsed lease.
ALTER TABLE verifications ADD COLUMN lease_owner TEXT;
ALTER TABLE lists ADD COLUMN lease_owner TEXT;
ALTER TABLE requests ADD COLUMN fill_lease_owner TEXT;
-- A feedback import is leased by the process reading its file: one killed half-way lets the
-- lease lapse and is marked failed (its file is on that process's machine: nobody else can
-- resume it; running it again records only what is missing). Imports left running before this
-- migration lapse at once.
ALTER TABLE feedback_imports ADD COLUMN lease_owner TEXT;
ALTER TABLE feedback_imports ADD COLUMN lease_expires_at TEXT;
UPDATE feedback_imports SET lease_expires_at = started_at WHERE state = 'running';
CREATE INDEX feedback_imports_running ON feedback_imports(lease_expires_at) WHERE state = 'running';
