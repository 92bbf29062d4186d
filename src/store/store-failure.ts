/**
 * Serves every role: a database that failed, told apart from a bug. The query interface of each
 * dialect (src/store/{sqlite,postgres}/database.ts) throws `StoreFailure` for every error the
 * database or its driver raised — a full disk, a lost or refused connection, a table that cannot
 * be read — and nothing else does. A caller may then answer "try again later" (the API's 503
 * service_unavailable) where a bug in a transaction script stays a bug (500, logged).
 */
export class StoreFailure extends Error {
  override readonly name = 'StoreFailure';
  /** The driver's code (SQLITE_FULL, a PostgreSQL SQLSTATE, ECONNREFUSED), kept for retries and logs. */
  readonly code: string | undefined;

  constructor(cause: unknown) {
    super(`the store failed: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    const code = (cause as { code?: unknown } | null)?.code;
    this.code = typeof code === 'string' ? code : undefined;
  }
}

/** A synchronous database call (better-sqlite3): what it throws comes out as a StoreFailure. */
export function storeCall<T>(call: () => T): T {
  try {
    return call();
  } catch (err) {
    throw storeFailure(err);
  }
}

/** `err` as a StoreFailure (already one: as it is). */
export function storeFailure(err: unknown): StoreFailure {
  return err instanceof StoreFailure ? err : new StoreFailure(err);
}
