-- Per-route politeness (issue 22, src/core/egress/polite-gate.ts): a token bucket per egress route,
-- MX host and kind ('session' or 'rcpt'), spent by every worker on this database, so what one MX
-- host sees from one route stays under PRESEND_EGRESS_*_PER_MINUTE_PER_HOST summed over them all.
-- The arithmetic is the rate limits' (src/core/token-bucket.ts), on a row locked while it runs.
-- Route names must mean the same egress on every worker that shares the database.
CREATE TABLE egress_politeness_buckets (
  route TEXT NOT NULL,
  host TEXT NOT NULL,
  kind TEXT NOT NULL,
  tokens DOUBLE PRECISION NOT NULL,
  updated_ms BIGINT NOT NULL,
  PRIMARY KEY (route, host, kind)
);
