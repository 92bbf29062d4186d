/**
 * The records of the egress pool's health, in a file of their own below everything that uses
 * them: the ports (src/core/ports.ts) name them, route-health.ts keeps them, the stores keep
 * them for every worker (memory-route-pauses.ts; PostgreSQL's src/store/postgres/route-pauses.ts).
 */

/** A route paused for a provider family: until when, and why. */
export interface RoutePause {
  route: string;
  family: string;
  until: number;
  /** Blocks in a row that set this pause. */
  strikes: number;
  reason: string;
}

/** What /metrics shows of the pool (routed-dispatcher.ts fills it). */
export interface EgressStats {
  probes: Array<{ route: string; count: number }>;
  blocks: Array<{ route: string; family: string; count: number }>;
  paused: RoutePause[];
}
