/**
 * The pauses the workers hold (issue 22): for each egress route, the providers whose servers
 * refuse its address for now (src/core/egress/route-health.ts). Read from the store, where every
 * worker keeps them on PostgreSQL; a SQLite store's pauses live in the one serving process and
 * show on its /metrics (`presend_egress_paused_until_seconds`) instead.
 */
import type { RoutePause } from '../../core/egress/route-pause.js';
import { passed, warned, type HealthCheck } from './health-check.js';

/** "microsoft until 2026-11-28T10:20:00Z (microsoft-banned-ip, 2 blocks in a row)". */
function described(pause: RoutePause): string {
  const scope = pause.family.startsWith('other:') ? `the server ${pause.family.slice('other:'.length)}` : pause.family;
  return `${scope} until ${new Date(pause.until).toISOString()} (${pause.reason}, ${pause.strikes} ${pause.strikes === 1 ? 'block' : 'blocks in a row'})`;
}

export function routePauseCheck(route: string, pauses: readonly RoutePause[], now: Date): HealthCheck {
  const held = pauses.filter((p) => p.route === route && p.until > now.getTime()).sort((a, b) => a.family.localeCompare(b.family));
  if (held.length === 0) {
    return passed(route, { id: 'paused', impact: 'degraded', summary: 'not paused for any provider', meaning: 'Every provider currently answers probes sent by this route.' });
  }
  return warned(route, {
    id: 'paused',
    impact: 'degraded',
    summary: `paused for ${held.map(described).join('; ')}`,
    meaning:
      "These providers' servers refused this route's address (a blocklist listing, a banned IP): their work goes by the other routes meanwhile, or waits (recheck_scheduled) when every route is paused.",
    action: 'Look the address up on the blocklist the refusal named and ask for delisting; the pause ends by itself, doubling with each block in a row.',
    detail: { pauses: held.map((p) => ({ family: p.family, until: new Date(p.until).toISOString(), strikes: p.strikes, reason: p.reason })) },
  });
}
