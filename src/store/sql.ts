/**
 * Serves every role: the query interface. The small query interface every transaction script of the store is written against, once:
 * SQLite (src/store/sqlite/database.ts) and PostgreSQL (src/store/postgres/database.ts) both
 * implement it. Statements use `?` placeholders and the SQL both dialects understand (upserts,
 * RETURNING, FILTER, CASE); what differs is a named fragment of `Dialect` or a function of the
 * dialect's own files (its claim query and bulk writes).
 *
 * Hand-written rather than a SQL builder: measured on the API benchmark, a statement here costs
 * a cached prepared statement and a parameter map, and the transaction scripts stay plain SQL
 * that can be read next to the migrations (docs/architecture.md, "Why no query builder").
 *
 * Values: Dates, booleans, strings, numbers and null go in as they are (SQLite receives ISO-8601
 * text and 0/1); a list goes in through `list()` and is matched with `Dialect.inList`. Rows come
 * back with timestamps as ISO-8601 strings and counts as numbers; booleans as 0/1 on SQLite, so
 * row mappers read them with `Boolean()`.
 */

/** A list parameter (`WHERE id ${dialect.inList}`): an array on PostgreSQL, JSON text on SQLite. */
export class ListParam {
  constructor(readonly values: readonly (string | number)[]) {}
}

export function list(values: readonly (string | number)[]): ListParam {
  return new ListParam(values);
}

type Scalar = string | number | boolean | Date | null;

/** A statement parameter. Plain arrays are for PostgreSQL's bulk writes (`unnest`) only; shared statements use `list()`. */
export type Param = Scalar | ListParam | readonly Scalar[];

/** What differs in the text of otherwise shared statements. */
export interface Dialect {
  readonly name: 'sqlite' | 'postgres';
  /**
   * Locks the rows a SELECT reads until the transaction ends (`FOR UPDATE [OF alias]` on
   * PostgreSQL). Nothing on SQLite, where a write transaction holds the whole database.
   */
  forUpdate(of?: string): string;
  /** The same lock, skipping rows another transaction holds (PostgreSQL); nothing on SQLite. */
  readonly forUpdateSkipLocked: string;
  /** Membership in a `list()` parameter: `= ANY(?)` on PostgreSQL, `IN (SELECT value FROM json_each(?))` on SQLite. */
  readonly inList: string;
}

/** A value, or a promise of it: always `await`ed by the scripts. */
export type Awaitable<T> = T | Promise<T>;

/**
 * One connection inside a transaction. SQLite answers synchronously (a promise per statement
 * was measurable on the API path); PostgreSQL with promises. Scripts `await` every call.
 */
export interface Tx {
  readonly dialect: Dialect;
  all<R>(sql: string, params?: readonly Param[]): Awaitable<R[]>;
  get<R>(sql: string, params?: readonly Param[]): Awaitable<R | undefined>;
  /** Rows changed. */
  run(sql: string, params?: readonly Param[]): Awaitable<number>;
}

/** Outcome as data: returned from `write`, it rolls the transaction back and still hands its value to the caller. */
export class Rollback<T> {
  constructor(readonly value: T) {}
}

export interface Db extends Tx {
  /** A single statement on its own. */
  all<R>(sql: string, params?: readonly Param[]): Promise<R[]>;
  get<R>(sql: string, params?: readonly Param[]): Promise<R | undefined>;
  run(sql: string, params?: readonly Param[]): Promise<number>;
  /**
   * One write transaction: all of `fn` or nothing. Serialization failures and deadlocks are
   * retried (PostgreSQL); writes issued together may share one commit (SQLite's group commit),
   * each still all-or-nothing on its own.
   */
  write<T>(fn: (tx: Tx) => Promise<T | Rollback<T>>): Promise<T>;
  /** Several reads from one snapshot. */
  read<T>(fn: (tx: Tx) => Promise<T>): Promise<T>;
  /** Applies pending numbered migrations (src/store/migrations/<dialect>/) under the dialect's lock. */
  migrate(): Promise<void>;
  /** Commits what was handed in, then closes the connection(s). */
  close(): Promise<void>;
}
