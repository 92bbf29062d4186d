-- The egress pool's pauses (issue 22, src/core/egress/route-health.ts): a route that a provider's
-- servers refuse is paused for that provider (scope: a provider family, or `other:MX-HOST`), and
-- every worker on this database reads the same pauses. One row per route and scope; a row whose
-- pause has lapsed keeps its strikes until the route gets an ordinary answer again.
-- Route names must mean the same egress on every worker that shares the database.
CREATE TABLE egress_route_pauses (
  route TEXT NOT NULL,
  scope TEXT NOT NULL,
  until_ms BIGINT NOT NULL,
  strikes INTEGER NOT NULL,
  reason TEXT NOT NULL,
  PRIMARY KEY (route, scope)
);

-- An item waiting for a recheck because every egress route was paused for its provider (reason
-- egress_paused), told apart from a greylisting for the dashboard. 1 while such a recheck waits, else 0
-- (an integer, as on SQLite, so the scripts compare it alike on both).
ALTER TABLE items ADD COLUMN waits_for_route SMALLINT NOT NULL DEFAULT 0;
