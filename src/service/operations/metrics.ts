/**
 * The service's Prometheus metrics (prom-client, one registry per service instance so tests
 * and embedded servers never share counters): request latency per route, finished checks by
 * verdict, credits debited, webhook attempts, batch queue depth, SMTP sessions of the live engine, and Node's
 * process metrics (CPU, memory, event-loop lag, handles) under the `presend_` prefix.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { SmtpSessionStats } from '../engines/session-stats.js';
import type { EgressStats } from '../../core/egress/route-pause.js';
import type { PolitenessStats } from '../../core/ports.js';

const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

export interface MetricsSources {
  /** Items not yet final, read when /metrics is scraped. */
  queueDepth?: () => Promise<number>;
  /** Sessions of the live engine (src/service/engines/session-stats.ts). */
  smtpSessions?: SmtpSessionStats;
  /** The live engine's egress pool (several PRESEND_EGRESS routes); null or absent with one route. */
  egress?: () => EgressStats | null;
  /** The live engine's per-route politeness waits (PRESEND_EGRESS_*_PER_MINUTE_PER_HOST); null or absent when no budget is set. */
  politeness?: () => PolitenessStats | null;
}

export class Metrics {
  readonly registry = new Registry();
  private readonly latency = new Histogram({
    name: 'presend_http_request_duration_seconds',
    help: 'HTTP request latency.',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });
  private readonly verifications = new Counter({
    name: 'presend_verifications_total',
    help: 'Finished checks (single and batch items) by verdict; "none" for outcomes without one.',
    labelNames: ['verdict'] as const,
    registers: [this.registry],
  });
  private readonly webhookAttempts = new Counter({
    name: 'presend_webhook_attempts_total',
    help: 'Webhook delivery attempts of this process by outcome: delivered (2xx), retry (any other answer or none), gone (410: endpoint disabled), refused (a private address, not connected).',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });
  private readonly creditsDebited = new Counter({
    name: 'presend_credits_debited_total',
    help: 'Credits debited by this process.',
    registers: [this.registry],
  });

  constructor(sources: MetricsSources = {}) {
    const { queueDepth, smtpSessions, egress, politeness } = sources;
    new Gauge({
      name: 'presend_queue_depth',
      help: 'Batch items not yet final (all processes sharing the store).',
      registers: [this.registry],
      async collect() {
        this.set(queueDepth ? await queueDepth().catch(() => 0) : 0);
      },
    });
    if (smtpSessions) {
      new Counter({
        name: 'presend_smtp_sessions_total',
        help: 'SMTP sessions the live engine started (one per per-MX session slot taken, failed connections included).',
        registers: [this.registry],
        collect() {
          this.reset();
          this.inc(smtpSessions.opened);
        },
      });
      new Gauge({
        name: 'presend_smtp_sessions_active',
        help: 'SMTP sessions of the live engine open now.',
        registers: [this.registry],
        collect() {
          this.set(smtpSessions.open);
        },
      });
    }
    if (egress) {
      new Counter({
        name: 'presend_egress_probes_total',
        help: 'Recipients the egress pool sent by each route (resent ones counted again).',
        labelNames: ['route'] as const,
        registers: [this.registry],
        collect() {
          this.reset();
          for (const { route, count } of egress()?.probes ?? []) this.inc({ route }, count);
        },
      });
      new Counter({
        name: 'presend_egress_blocks_total',
        help: "Replies of a provider family's servers that refused a route's address (blocklist, banned IP).",
        labelNames: ['route', 'family'] as const,
        registers: [this.registry],
        collect() {
          this.reset();
          for (const { route, family, count } of egress()?.blocks ?? []) this.inc({ route, family }, count);
        },
      });
      new Gauge({
        name: 'presend_egress_paused_until_seconds',
        help: 'Routes paused for a provider family, and until when (Unix time): their work goes by other routes.',
        labelNames: ['route', 'family'] as const,
        registers: [this.registry],
        collect() {
          this.reset();
          for (const pause of egress()?.paused ?? []) this.set({ route: pause.route, family: pause.family }, Math.round(pause.until / 1000));
        },
      });
    }
    if (politeness) {
      new Counter({
        name: 'presend_egress_politeness_waits_total',
        help: "Recipients (kind rcpt) and sessions (kind session) that waited for a route's politeness budget of their MX host.",
        labelNames: ['route', 'kind'] as const,
        registers: [this.registry],
        collect() {
          this.reset();
          for (const { route, kind, count } of politeness()?.waits ?? []) this.inc({ route, kind }, count);
        },
      });
      new Counter({
        name: 'presend_egress_politeness_not_asked_total',
        help: 'Recipients not asked because the politeness budget would have kept them waiting past PRESEND_HOST_THROTTLE_BOUND_MS (host_throttled, rechecked later).',
        labelNames: ['route'] as const,
        registers: [this.registry],
        collect() {
          this.reset();
          for (const { route, count } of politeness()?.tooLong ?? []) this.inc({ route }, count);
        },
      });
    }
    collectDefaultMetrics({ register: this.registry, prefix: 'presend_' });
  }

  observeRequest(method: string, route: string, status: number, seconds: number): void {
    this.latency.observe({ method, route, status: String(status) }, seconds);
  }

  /** One finished check (single or batch item); `verdict` null for non-verdict outcomes without one. */
  observeVerification(verdict: string | null, debited: number): void {
    this.verifications.inc({ verdict: verdict ?? 'none' });
    if (debited > 0) this.creditsDebited.inc(debited);
  }

  observeWebhookAttempt(outcome: 'delivered' | 'retry' | 'gone' | 'refused'): void {
    this.webhookAttempts.inc({ outcome });
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  render(): Promise<string> {
    return this.registry.metrics();
  }
}
