-- An item waiting for a recheck because every egress route was paused for its provider (issue 22,
-- reason egress_paused), told apart from a greylisting: the dashboard says "the mail servers of N
-- addresses refuse our probes for now; retrying at …". 1 while such a recheck waits, else 0.
ALTER TABLE items ADD COLUMN waits_for_route INTEGER NOT NULL DEFAULT 0;
