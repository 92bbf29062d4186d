-- Fewer index entries per batch item (issue 12: a million-address list batch is bound by the
-- database server's CPU). Every update of an item row writes a new row version, and each version
-- gets an entry in every index whose predicate it meets, read or not:
-- - items_open (request_id WHERE state <> 'final') is read by no query since unfinished items
--   are counted in requests.open_count: each item paid two entries for it (pending, leased).
-- - (request_id, final_seq) only ever needs final items, which alone have a sequence number: as a
--   partial unique index it stays just as unique (NULLs never conflicted), and the pending and
--   leased versions of an item no longer add entries with a NULL sequence number.
DROP INDEX IF EXISTS items_open;
ALTER TABLE items DROP CONSTRAINT IF EXISTS items_request_id_final_seq_key;
CREATE UNIQUE INDEX IF NOT EXISTS items_final_seq ON items(request_id, final_seq) WHERE final_seq IS NOT NULL;
