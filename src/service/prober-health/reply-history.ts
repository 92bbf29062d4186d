/**
 * How each provider family answered recently: the share of live results whose probe was
 * blocked (`probe_blocked`: a 5.7.x policy reply, a blocklist text, a refusal at the banner)
 * and of those throttled (`throttled`: "try again later, too many"). A family that blocks a
 * growing share of probes is the first sign that receivers have started to distrust the
 * egress address, before any blocklist lists it.
 *
 * Read from the store (src/store/roles/prober-replies.ts), not from a process's counters: the
 * doctor runs as its own process, and on PostgreSQL every worker's results are there. With one
 * egress route today, every result belongs to it.
 */
import type { RecentProbeResult } from '../../store/roles/prober-replies.js';
import { failed, passed, warned, type HealthCheck } from './health-check.js';

/** Fewer results than this say nothing about a family. */
export const MIN_RESULTS = 20;
const BLOCKED_FAIL = 0.2;
const BLOCKED_WARN = 0.05;
const THROTTLED_WARN = 0.3;

export interface FamilyReplies {
  family: string;
  results: number;
  blocked: number;
  throttled: number;
}

export function tallyReplies(results: readonly RecentProbeResult[]): FamilyReplies[] {
  const byFamily = new Map<string, FamilyReplies>();
  for (const result of results) {
    if (result.providerFamily === null) continue; // no MX host, no probe
    const family = byFamily.get(result.providerFamily) ?? { family: result.providerFamily, results: 0, blocked: 0, throttled: 0 };
    family.results += 1;
    if (result.reasons.includes('probe_blocked')) family.blocked += 1;
    if (result.reasons.includes('throttled')) family.throttled += 1;
    byFamily.set(family.family, family);
  }
  return [...byFamily.values()].sort((a, b) => b.results - a.results);
}

const percent = (part: number, whole: number): string => `${Math.round((100 * part) / whole)}%`;

export function replyHistoryChecks(route: string, results: readonly RecentProbeResult[], windowHours: number): HealthCheck[] {
  const families = tallyReplies(results).filter((f) => f.results >= MIN_RESULTS);
  if (families.length === 0) {
    return [passed(route, { id: 'replies', impact: 'degraded', summary: `fewer than ${MIN_RESULTS} live results per provider in the last ${windowHours} h: nothing to judge from`, meaning: 'No sign of receivers blocking the prober (and not enough results to see one).' })];
  }
  return families.map((f) => {
    const id = `replies:${f.family}`;
    const shares = `${percent(f.blocked, f.results)} blocked, ${percent(f.throttled, f.results)} throttled of ${f.results} recent results`;
    const detail = { ...f, windowHours };
    const blockedShare = f.blocked / f.results;
    if (blockedShare >= BLOCKED_FAIL) {
      return failed(route, {
        id,
        impact: 'degraded',
        summary: `${f.family}: ${shares}`,
        meaning: `${f.family}'s servers refuse a large share of probes from this egress: its addresses end UNKNOWN.`,
        action: 'Look at the blocklist and PTR checks; slow down (PRESEND_MAX_SESSIONS_PER_MX) or probe this provider from another address.',
        detail,
      });
    }
    if (blockedShare >= BLOCKED_WARN || f.throttled / f.results >= THROTTLED_WARN) {
      return warned(route, {
        id,
        impact: 'degraded',
        summary: `${f.family}: ${shares}`,
        meaning: `${f.family}'s servers have started to refuse or slow down some probes from this egress.`,
        action: 'Watch this share; if it grows, see the blocklist checks and lower PRESEND_MAX_SESSIONS_PER_MX.',
        detail,
      });
    }
    return passed(route, { id, impact: 'degraded', summary: `${f.family}: ${shares}`, meaning: `${f.family}'s servers answer the probes.`, detail });
  });
}
