/**
 * A bounded, fair queue in front of expensive work (password hashes): at most `concurrency` jobs
 * run at once; waiting jobs are taken from each key (a client address) in turn, so one address
 * with many jobs waiting delays another address's job by at most one of its own per round; and
 * at most `perKey` jobs wait per key and `total` overall — past them a job is refused at once
 * (issue 21: 300 sign-ins from one address queued unboundedly, and a real owner's took 49 s).
 */

export interface FairGateLimits {
  /** Jobs running at once. */
  concurrency: number;
  /** Jobs of one key waiting (not yet running) at most; more are refused. */
  perKey: number;
  /** Jobs waiting over all keys at most; more are refused. */
  total: number;
}

export class FairGate {
  private running = 0;
  private waiting = 0;
  /** Waiting starts by key, in the order the keys get their next turn (a Map keeps insertion order). */
  private readonly queues = new Map<string, Array<() => void>>();

  constructor(private readonly limits: FairGateLimits) {}

  /** Runs `job` in its turn, or returns null at once when the key's or the gate's queue is full. */
  offer<T>(key: string, job: () => Promise<T>): Promise<T> | null {
    if (this.running >= this.limits.concurrency) {
      const queue = this.queues.get(key);
      if ((queue?.length ?? 0) >= this.limits.perKey || this.waiting >= this.limits.total) return null;
    }
    return this.queue(key, job);
  }

  /** Runs `job` in its turn however many wait (for work already bounded elsewhere: a password set through a one-time link). */
  async queue<T>(key: string, job: () => Promise<T>): Promise<T> {
    if (this.running >= this.limits.concurrency) {
      await new Promise<void>((start) => {
        const queue = this.queues.get(key);
        if (queue) queue.push(start);
        else this.queues.set(key, [start]);
        this.waiting += 1;
      });
    } else {
      this.running += 1;
    }
    try {
      return await job();
    } finally {
      this.next();
    }
  }

  /** Hands the finished job's slot to the key whose turn it is, which then goes to the back of the round. */
  private next(): void {
    const turn = this.queues.entries().next();
    if (turn.done) {
      this.running -= 1;
      return;
    }
    const [key, queue] = turn.value;
    const start = queue.shift() as () => void;
    this.queues.delete(key);
    if (queue.length > 0) this.queues.set(key, queue);
    this.waiting -= 1;
    start(); // the slot passes straight on: `running` stays
  }
}
