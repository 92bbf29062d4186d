/**
 * A small Prometheus registry (text exposition format 0.0.4): a latency histogram per route,
 * verifications by verdict, credits debited and queue depth. Hand-written because four
 * metrics do not justify a dependency.
 */
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

const escapeLabel = (v: string): string => v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
const labels = (l: Record<string, string>): string =>
  Object.keys(l).length === 0 ? '' : `{${Object.entries(l).map(([k, v]) => `${k}="${escapeLabel(v)}"`).join(',')}}`;

interface Histogram {
  buckets: number[];
  sum: number;
  count: number;
}

export class Metrics {
  private readonly latency = new Map<string, { labels: Record<string, string>; h: Histogram }>();
  private readonly verifications = new Map<string, number>();
  private creditsDebited = 0;

  observeRequest(method: string, route: string, status: number, seconds: number): void {
    const l = { method, route, status: String(status) };
    const key = JSON.stringify(l);
    let entry = this.latency.get(key);
    if (!entry) {
      entry = { labels: l, h: { buckets: LATENCY_BUCKETS.map(() => 0), sum: 0, count: 0 } };
      this.latency.set(key, entry);
    }
    LATENCY_BUCKETS.forEach((le, i) => {
      if (seconds <= le) entry.h.buckets[i] = (entry.h.buckets[i] ?? 0) + 1;
    });
    entry.h.sum += seconds;
    entry.h.count += 1;
  }

  /** One finished check (single or batch item); `verdict` null for non-verdict outcomes without one. */
  observeVerification(verdict: string | null, debited: number): void {
    const key = verdict ?? 'none';
    this.verifications.set(key, (this.verifications.get(key) ?? 0) + 1);
    this.creditsDebited += debited;
  }

  render(queueDepth: number): string {
    const out: string[] = [];
    out.push('# HELP presend_http_request_duration_seconds HTTP request latency.');
    out.push('# TYPE presend_http_request_duration_seconds histogram');
    for (const { labels: l, h } of this.latency.values()) {
      LATENCY_BUCKETS.forEach((le, i) => out.push(`presend_http_request_duration_seconds_bucket${labels({ ...l, le: String(le) })} ${h.buckets[i] ?? 0}`));
      out.push(`presend_http_request_duration_seconds_bucket${labels({ ...l, le: '+Inf' })} ${h.count}`);
      out.push(`presend_http_request_duration_seconds_sum${labels(l)} ${h.sum}`);
      out.push(`presend_http_request_duration_seconds_count${labels(l)} ${h.count}`);
    }
    out.push('# HELP presend_verifications_total Finished checks by verdict.');
    out.push('# TYPE presend_verifications_total counter');
    for (const [verdict, n] of this.verifications) out.push(`presend_verifications_total${labels({ verdict })} ${n}`);
    out.push('# HELP presend_credits_debited_total Credits debited by this process.');
    out.push('# TYPE presend_credits_debited_total counter');
    out.push(`presend_credits_debited_total ${this.creditsDebited}`);
    out.push('# HELP presend_queue_depth Batch items not yet final.');
    out.push('# TYPE presend_queue_depth gauge');
    out.push(`presend_queue_depth ${queueDepth}`);
    return out.join('\n') + '\n';
  }
}
