/**
 * The default SessionLimiter: an in-process counting semaphore per MX host. Waiters are
 * served first come, first served, so no batch starves another. With PostgreSQL the service
 * passes a shared implementation instead (the limit then holds over all workers).
 */
import type { SessionLimiter } from './ports.js';

interface Slot {
  active: number;
  waiting: Array<() => void>;
}

export function createMemorySessionLimiter(maxPerHost: number): SessionLimiter {
  const slots = new Map<string, Slot>();

  const releaseFor = (host: string, slot: Slot): (() => void) => {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = slot.waiting.shift();
      if (next) {
        next(); // the slot passes straight to the next waiter
        return;
      }
      slot.active--;
      if (slot.active === 0) slots.delete(host);
    };
  };

  return {
    acquire(mxHost, signal) {
      let slot = slots.get(mxHost);
      if (!slot) {
        slot = { active: 0, waiting: [] };
        slots.set(mxHost, slot);
      }
      const current = slot;
      if (current.active < maxPerHost) {
        current.active++;
        return Promise.resolve(releaseFor(mxHost, current));
      }
      return new Promise((resolve, reject) => {
        const grant = (): void => {
          signal?.removeEventListener('abort', abort);
          resolve(releaseFor(mxHost, current));
        };
        const abort = (): void => {
          current.waiting = current.waiting.filter((w) => w !== grant);
          reject(signal?.reason instanceof Error ? signal.reason : new Error('aborted'));
        };
        current.waiting.push(grant);
        signal?.addEventListener('abort', abort, { once: true });
      });
    },
  };
}
