/**
 * The options every call of the client takes (a signal; an idempotency key where a call spends
 * credits; a page's size and cursor). Their own file so that the loops beside the client
 * (batches.ts, export.ts, wait.ts) take them without importing the client they serve.
 */
export interface CallOptions {
  signal?: AbortSignal;
}

export interface SpendOptions extends CallOptions {
  /** Reuse only to repeat the identical call (e.g. after a lost answer). Default: a fresh UUID. */
  idempotencyKey?: string;
}

export interface PageOptions extends CallOptions {
  /** 1–200, default 50 on the service. */
  limit?: number;
  /** The `nextCursor` of the preceding page; opaque. */
  cursor?: string;
}
