-- Fewer index entries per batch item (issue 12): items_work is read only for unfinished items
-- (pending, leased, waiting for a recheck), so final items leave it instead of each moving to a
-- 'final' region of it, at a random place, when its result is written. Written as OR-ed equalities
-- so SQLite can use it for each of `state = 'pending'`, `'claimed'` and `'recheck'`
-- (a partial index serves a query whose WHERE has one of its OR-ed terms).
DROP INDEX IF EXISTS items_work;
CREATE INDEX items_work ON items(state, request_id, domain) WHERE state = 'pending' OR state = 'claimed' OR state = 'recheck';
