-- A batch over a stored list is created at once (its count known from the list) and its items
-- are copied from the list in bounded chunks afterwards, each its own transaction
-- (src/store/roles/list-batches.ts). fill_position is the next list position to copy (NULL:
-- every item is written); fill_lease_expires_at is the lease of the process copying, so another
-- process, or the next start, resumes a fill whose process died. The request is not finalized
-- before its fill is done.
ALTER TABLE requests ADD COLUMN fill_position INTEGER;
ALTER TABLE requests ADD COLUMN fill_lease_expires_at TIMESTAMPTZ;
CREATE INDEX requests_filling ON requests(fill_lease_expires_at) WHERE fill_position IS NOT NULL;
-- The outstanding work of an account (its unfinished requests) is summed at each batch creation.
CREATE INDEX requests_unfinished ON requests(account_id) WHERE state IN ('queued', 'running');

-- An import renews its lease with every chunk it appends; an `importing` list whose lease ran
-- out (the importing process died) is marked failed. NULL: not leased (an upload waiting for its
-- owner to pick the address column).
ALTER TABLE lists ADD COLUMN lease_expires_at TIMESTAMPTZ;
UPDATE lists SET lease_expires_at = created_at
  WHERE state = 'importing' AND id NOT IN (SELECT list_id FROM list_files WHERE column_choices_json IS NOT NULL);
CREATE INDEX lists_importing ON lists(lease_expires_at) WHERE state = 'importing';
CREATE INDEX lists_failed ON lists(created_at) WHERE state = 'failed';

-- What a request's finalization sums (credits debited and released, failed items), kept as its
-- results are written: counting a million items when the last one came in held the database
-- (and, on SQLite, the event loop) for over a second. NULL for requests created before this
-- migration, which are still counted.
ALTER TABLE requests ADD COLUMN tally_debited INTEGER;
ALTER TABLE requests ADD COLUMN tally_released INTEGER;
ALTER TABLE requests ADD COLUMN tally_failed INTEGER;
