/**
 * The egress pool over the MX dispatcher (issue 22): one dispatcher per route (its own HELO
 * name, proxy and source address), and for each recipient the route that RouteHealth picks for
 * the provider family of its MX hosts. A reply that says the route's address is refused
 * (ip-block-signal.ts) pauses that route for that family (for one MX host when the family is
 * `other`) and sends the recipient again by
 * another route; when every route the family may use is paused, the recipient is not asked: it
 * ends `egress_paused` (recheck_scheduled, with the time the first route comes back, classify.ts)
 * rather than UNKNOWN: the block is about us, not about the address.
 *
 * A layer above MxDispatcher rather than a change inside it: the dispatcher and its host
 * queues stay one route's business, and one route (the usual setup) does without this layer.
 */
import type { MxHost } from '../dns/mail-hosts.js';
import { familyOfHost } from '../domain/provider-family.js';
import type { MxDispatcher, ProbeOutcome } from '../smtp/dispatcher.js';
import type { ProbeTarget } from '../smtp/host-queue.js';
import type { SessionFailure } from '../smtp/session.js';
import type { EgressRoute } from './egress-routes.js';
import { ipBlockSignal } from './ip-block-signal.js';
import type { RouteHealth } from './route-health.js';
import type { EgressStats } from './route-pause.js';


export type ProbeDispatcher = Pick<MxDispatcher, 'probe' | 'probeEach' | 'warm' | 'close'>;

export interface RouteWithDispatcher {
  route: EgressRoute;
  dispatcher: ProbeDispatcher;
}

const PAUSED_DETAIL = 'every egress route is paused for';

/** The failure the pool answers with when every route of the recipient's provider is paused (classify-finding.ts reads it as `egress_paused`). */
export function isEgressPaused(failure: SessionFailure): boolean {
  return failure.kind === 'temporary' && failure.reply === null && failure.detail.startsWith(PAUSED_DETAIL);
}

/** Why an outcome says the route is refused: the rule of ip-block-signal.ts, or null. */
export function routeBlockOf(outcome: ProbeOutcome): string | null {
  switch (outcome.kind) {
    case 'reply':
    case 'mail_rejected':
      return ipBlockSignal(outcome.reply);
    case 'failure':
      return outcome.failure.reply ? ipBlockSignal(outcome.failure.reply) : null;
    default:
      return null;
  }
}

/**
 * What a block pauses a route for: the provider family, whose servers share one view of an
 * address (Microsoft's, Yahoo's), or — for `other`, which is every independent server — the MX
 * host alone: one small server's blocklist says nothing about the next one.
 */
export function healthScope(hosts: readonly MxHost[]): string {
  const first = hosts[0]?.name ?? '';
  const family = familyOfHost(first);
  return family === 'other' ? `other:${first.toLowerCase()}` : family;
}

export class RoutedDispatcher implements ProbeDispatcher {
  private readonly byName: ReadonlyMap<string, RouteWithDispatcher>;
  private readonly probes = new Map<string, number>();

  constructor(
    routes: readonly RouteWithDispatcher[],
    private readonly health: RouteHealth,
  ) {
    this.byName = new Map(routes.map((r) => [r.route.name, r]));
  }

  /** The route for this recipient's domain, among those not paused (a route that refused it is paused by then). */
  private async pick(family: string, domain: string): Promise<RouteWithDispatcher | { retryAt: number }> {
    const pick = await this.health.pick(family, domain);
    if (pick.kind === 'all_paused') return { retryAt: pick.retryAt };
    return this.byName.get(pick.route.name) ?? { retryAt: Number.NaN };
  }

  /** Recipients sent by each route, and what RouteHealth knows: for /metrics. */
  stats(): EgressStats {
    return { probes: [...this.probes].map(([route, count]) => ({ route, count })), blocks: this.health.blocks(), paused: this.health.paused() };
  }

  async probe(target: ProbeTarget, hosts: readonly MxHost[], signal?: AbortSignal): Promise<ProbeOutcome> {
    const family = healthScope(hosts);
    const domain = target.recipient.slice(target.recipient.lastIndexOf('@') + 1);
    let attempts = 0;
    // Each turn either returns or pauses the route it used, so the routes run out.
    for (;;) {
      const chosen = await this.pick(family, domain);
      if (!('route' in chosen)) {
        const until = Number.isFinite(chosen.retryAt) ? new Date(chosen.retryAt).toISOString() : 'later';
        return {
          kind: 'failure',
          failure: {
            kind: 'temporary',
            step: 'connect',
            reply: null,
            detail: `${PAUSED_DETAIL} ${family} (its servers refuse our addresses); retrying after ${until}`,
            ...(Number.isFinite(chosen.retryAt) ? { retryAt: chosen.retryAt } : {}),
          },
          host: hosts[0]?.name ?? null,
          attempts,
        };
      }
      this.probes.set(chosen.route.name, (this.probes.get(chosen.route.name) ?? 0) + 1);
      target.evidence?.note(`sent from the egress route ${chosen.route.name}`);
      const outcome = await chosen.dispatcher.probe(target, hosts, signal);
      attempts += outcome.attempts;
      const block = routeBlockOf(outcome);
      if (block === null) {
        if (outcome.kind === 'reply') await this.health.worked(chosen.route.name, family);
        return { ...outcome, attempts };
      }
      await this.health.blocked(chosen.route.name, family, block);
      target.evidence?.note(`${family} refused the egress route ${chosen.route.name} (${block}): paused for it, another route is tried`);
    }
  }

  probeEach<T extends ProbeTarget>(hosts: readonly MxHost[], onOutcome: (outcome: ProbeOutcome, target: T) => void): (target: T) => void {
    return (target) => void this.probe(target, hosts).then((outcome) => onOutcome(outcome, target));
  }

  /**
   * Nothing: warming opens sessions ahead of a domain's recipients, but the route is chosen by
   * the recipient's domain, which warm() is not told; a session opened by the wrong route
   * would only cost the MX host a connection. Sessions open with the first recipient instead.
   */
  async warm(): Promise<void> {}

  async close(): Promise<void> {
    await Promise.allSettled([...this.byName.values()].map((r) => r.dispatcher.close()));
  }
}
