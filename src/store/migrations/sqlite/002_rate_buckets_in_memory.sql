-- Rate-limit buckets moved into the serving process's memory (src/store/sqlite/sqlite-store.ts):
-- one SQLite store serves one API process, and a write per request was its largest cost.
DROP TABLE IF EXISTS rate_buckets;
