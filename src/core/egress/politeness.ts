/**
 * Where the politeness budgets are spent (polite-gate.ts): one RCPT token per recipient a route
 * hands to an MX host's queue, one session token per session a route opens to the host. Two thin
 * wrappers, so the host queue and its sessions (smtp/) stay unchanged: a dispatcher in front of
 * each route's MxDispatcher, and a SessionLimiter in front of the shared one.
 *
 * A recipient is charged once, when it joins the host's queue: one the host asks us to send
 * again (a 452 "too many recipients", a group it cut, a throttling reply) is not charged again,
 * since then the host's own pauses (backoff.ts) pace us. Catch-all probes are recipients too.
 */
import type { MxHost } from '../dns/mail-hosts.js';
import type { SessionLimiter } from '../ports.js';
import type { ProbeOutcome } from '../smtp/dispatcher.js';
import type { ProbeTarget } from '../smtp/host-queue.js';
import type { PoliteGate } from './polite-gate.js';
import type { ProbeDispatcher } from './routed-dispatcher.js';

/** The session limiter of one route: a session token of (route, MX host) first, then a slot. */
export function politeLimiter(inner: SessionLimiter, gate: PoliteGate, route: string): SessionLimiter {
  if (gate.limit('session') <= 0) return inner;
  return {
    async acquire(mxHost, signal) {
      // Closed or aborted: the slot is asked for anyway, and the closing queue opens nothing with it.
      await gate.admit(route, mxHost, 'session', signal);
      return inner.acquire(mxHost, signal);
    },
  };
}

/** One route's dispatcher, each recipient let through by an RCPT token of (route, its MX host). */
export class PoliteDispatcher implements ProbeDispatcher {
  constructor(
    private readonly route: string,
    private readonly inner: ProbeDispatcher,
    private readonly gate: PoliteGate,
  ) {}

  async probe(target: ProbeTarget, hosts: readonly MxHost[], signal?: AbortSignal): Promise<ProbeOutcome> {
    const host = hosts[0]?.name;
    if (host === undefined || this.gate.limit('rcpt') <= 0) return this.inner.probe(target, hosts, signal);
    const started = this.gate.now();
    const admission = await this.gate.admit(this.route, host, 'rcpt', signal);
    switch (admission) {
      case 'go': {
        const waitedMs = this.gate.now() - started;
        if (waitedMs > 0) target.evidence?.note(`waited ${waitedMs} ms for the politeness budget of ${host} (${this.gate.limit('rcpt')} RCPTs a minute from route ${this.route})`);
        return this.inner.probe(target, hosts, signal);
      }
      case 'too_long': {
        const detail = `not asked: the politeness budget of ${host} (${this.gate.limit('rcpt')} RCPTs a minute from route ${this.route}) would keep it waiting past ${this.gate.boundMs} ms`;
        target.evidence?.note(detail);
        return { kind: 'host_throttled', reply: null, detail, host, attempts: 0 };
      }
      case 'closed':
      case 'aborted':
        return { kind: 'aborted', host: null, attempts: 0 };
    }
  }

  probeEach<T extends ProbeTarget>(hosts: readonly MxHost[], onOutcome: (outcome: ProbeOutcome, target: T) => void): (target: T) => void {
    if (this.gate.limit('rcpt') <= 0) return this.inner.probeEach(hosts, onOutcome);
    return (target) => void this.probe(target, hosts).then((outcome) => onOutcome(outcome, target));
  }

  /**
   * Nothing when RCPTs are paced: sessions opened ahead of a paced trickle of recipients would sit
   * idle, each costing a session token. Sessions open with the first recipient instead.
   */
  async warm(hosts: readonly MxHost[], expectedRecipients: number): Promise<void> {
    if (this.gate.limit('rcpt') <= 0) await this.inner.warm(hosts, expectedRecipients);
  }

  async close(): Promise<void> {
    this.gate.close();
    await this.inner.close();
  }
}
