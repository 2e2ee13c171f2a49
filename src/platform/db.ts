import { neon, neonConfig, Pool } from "@neondatabase/serverless";
import { drizzle as drizzleHttp } from "drizzle-orm/neon-http";
import { drizzle as drizzlePool } from "drizzle-orm/neon-serverless";
import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";
import type * as schema from "../db/schema";
import { CallSlots } from "./call-slots";
import { workerConfig } from "./config";
import { withDeadline } from "./deadline";
import type { Bindings } from "./env";

/**
 * The one database type: the Worker's HTTP path, its WebSocket Pool sessions and Node's pg (CLI,
 * tests) all are drizzle databases over this schema. On the HTTP path `transaction()` throws: a
 * request's work is one statement (or a `batch`); interactive transactions use `openSession`.
 */
export type Db = PgDatabase<PgQueryResultHKT, typeof schema>;

/** The database did not answer in time or could not be reached: the API answers 503. */
export class DatabaseUnavailable extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "DatabaseUnavailable";
  }
}

/**
 * What a failed database call means for the caller: the one mapping from database failures to
 * answers, for SQL over HTTP and WebSocket sessions alike (`onError` in src/http/errors.ts turns it
 * into the answer; the table is in docs/reliability.md).
 * - `unavailable` (503 with Retry-After): the deadline, a connection refused, cut, reset or timed out,
 *   and PostgreSQL refusing work for now (shutting down, starting up, in recovery, out of resources,
 *   a deadlock or serialization failure to retry). Nothing was written: each statement, batch and
 *   transaction is atomic, so PostgreSQL rolled back whatever was cut off.
 * - `input` (400): a constraint or data error, which reaches the database only through the caller's
 *   input (the checks before it let something through); `field` is the column PostgreSQL names, as
 *   the API names fields.
 * - undefined: anything else (500).
 */
export type DatabaseFailure = { kind: "unavailable" } | { kind: "input"; field: string; message: string; sqlState: string };

/** SQLSTATE classes and codes that mean "not now": connection exceptions, insufficient resources, and … */
const UNAVAILABLE_CLASSES = new Set(["08", "53"]);
const UNAVAILABLE_CODES = new Set([
  "57014", // query_canceled (a statement timeout)
  "57P01", // admin_shutdown: the server is shutting down, or the backend was terminated
  "57P02", // crash_shutdown: another backend crashed, the server restarts
  "57P03", // cannot_connect_now: starting up, shutting down or in recovery
  "57P05", // idle_session_timeout
  "40001", // serialization_failure
  "40P01", // deadlock_detected
]);
/** Socket errors (errno names, as Node and the driver's socket report them): the connection could not be made or was cut. */
const SOCKET_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ECONNABORTED",
  "ETIMEDOUT",
  "EPIPE",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
]);
/** Fixed messages per input error (PostgreSQL's own text may quote values and is not for callers). */
const INPUT_MESSAGES: Record<string, string> = {
  "23502": "Required",
  "23503": "Refers to a row that does not exist",
  "23505": "Already exists",
  "23514": "Not allowed",
  "22001": "Too long",
  "22003": "Out of range",
};
const SQLSTATE = /^[0-9A-Z]{5}$/;

interface PgErrorFields {
  code: string;
  column?: unknown;
  detail?: unknown;
}

/** The PostgreSQL error in `error`'s chain (drizzle's `cause`, the Neon driver's `sourceError`), if any. */
function postgresError(error: unknown): PgErrorFields | undefined {
  for (let e = error, depth = 0; e && typeof e === "object" && depth < 6; depth++) {
    const { code } = e as { code?: unknown };
    if (typeof code === "string" && SQLSTATE.test(code)) return e as PgErrorFields;
    const next = e as { cause?: unknown; sourceError?: unknown };
    e = next.sourceError ?? next.cause;
  }
  return undefined;
}

/** The column an input error is about: PostgreSQL's `column` field, else the key of `Key (…)=(…)` in its detail. */
function fieldOf({ column, detail }: PgErrorFields): string {
  if (typeof column === "string" && column) return column;
  const key = typeof detail === "string" ? /^Key \(([^)]*)\)=/.exec(detail)?.[1] : undefined;
  // The company is the token's, never the caller's field.
  const columns =
    key
      ?.split(",")
      .map((c) => c.trim().replace(/^"|"$/g, ""))
      .filter((c) => c && c !== "company_id") ?? [];
  return columns.join(",") || "(body)";
}

export function databaseFailure(error: unknown): DatabaseFailure | undefined {
  for (let e = error, depth = 0; e && typeof e === "object" && depth < 6; depth++) {
    if (e instanceof DatabaseUnavailable || (e as { name?: unknown }).name === "TimeoutError") return { kind: "unavailable" };
    const { code } = e as { code?: unknown };
    if (typeof code === "string" && SOCKET_CODES.has(code)) return { kind: "unavailable" };
    const next = e as { cause?: unknown; sourceError?: unknown };
    e = next.sourceError ?? next.cause;
  }
  const pg = postgresError(error);
  if (!pg) return undefined;
  if (UNAVAILABLE_CLASSES.has(pg.code.slice(0, 2)) || UNAVAILABLE_CODES.has(pg.code)) return { kind: "unavailable" };
  if (pg.code.startsWith("22") || pg.code.startsWith("23")) {
    return {
      kind: "input",
      field: fieldOf(pg),
      message: INPUT_MESSAGES[pg.code] ?? "Not a value the field can hold",
      sqlState: pg.code,
    };
  }
  return undefined;
}

/** True when the API answers `error` with 503 (see `databaseFailure`). */
export const isDatabaseUnavailable = (error: unknown): boolean => databaseFailure(error)?.kind === "unavailable";

/** Per-isolate settings: neonConfig is global, and an isolate serves one Worker with one set of bindings. */
let configured: { env: Bindings; key: string; deadlineMs: number } | undefined;

function configure(env: Bindings) {
  // Every request calls this: the same bindings object (the usual case in an isolate) needs no comparison.
  if (configured?.env === env) return configured;
  const key = [env.NEON_LOCAL_PROXY, env.DB_DEADLINE_MS, env.DB_MAX_CONCURRENCY].join("|");
  if (configured?.key === key) {
    configured.env = env;
    return configured;
  }
  const { DB_DEADLINE_MS: deadlineMs, DB_MAX_CONCURRENCY } = workerConfig(env);
  // A slot lapses at the deadline: by then its call has ended, whatever became of its request.
  const slots = new CallSlots(DB_MAX_CONCURRENCY, deadlineMs);
  if (env.NEON_LOCAL_PROXY) {
    // Local stack: one address serves Neon's SQL over HTTP and a plain-ws proxy speaking raw PostgreSQL (no pipelining).
    const proxy = env.NEON_LOCAL_PROXY;
    neonConfig.fetchEndpoint = () => `http://${proxy}/sql`;
    neonConfig.wsProxy = (host, port) => `${proxy}/v1?address=${host}:${port}`;
    neonConfig.useSecureWebSocket = false;
    neonConfig.pipelineConnect = false;
  }
  // Every HTTP query goes through here: the isolate-wide cap, and one deadline (the signal) for waiting for a
  // slot, connecting and reading the answer. (A late answer's statement may still commit: each is atomic, so
  // nothing is ever half-written.)
  const timedOut = () => new DatabaseUnavailable(`no answer from the database within ${deadlineMs} ms`);
  neonConfig.fetchFunction = async (url: string, init: RequestInit) => {
    const signal = AbortSignal.timeout(deadlineMs);
    const slot = slots.tryTake() ?? (await slots.take(signal, timedOut));
    let res: Response;
    try {
      res = await fetch(url, { ...init, signal });
    } catch (e) {
      throw signal.aborted ? timedOut() : new DatabaseUnavailable("the database could not be reached", { cause: e });
    } finally {
      slots.release(slot);
    }
    // 400 carries a PostgreSQL error for the caller; other failures are the service's.
    if (res.status >= 500) throw new DatabaseUnavailable(`the database answered HTTP ${res.status}`);
    return res;
  };
  configured = { env, key, deadlineMs };
  return configured;
}

let httpDb: { url: string; db: Db } | undefined;

/**
 * The request path: each statement is one HTTPS request (no connection start-up, no password
 * exchange, nothing held between statements or while a caller is slow). One per isolate.
 */
export function createDb(env: Bindings): Db {
  configure(env);
  // Typed with the schema, built without it: nothing uses relational queries (`db.query`), whose
  // config drizzle would otherwise derive from every table on each drizzle() call.
  if (httpDb?.url !== env.DATABASE_URL) httpDb = { url: env.DATABASE_URL, db: drizzleHttp<typeof schema>(neon(env.DATABASE_URL)) };
  return httpDb.db;
}

/**
 * A WebSocket session for work that must hold a transaction open across round trips (read, decide
 * in code, write under the same locks). Opens nothing until the first query; the caller ends it
 * (Workers must not reuse sockets across requests: end it in the same request, via waitUntil).
 */
export function openSession(env: Bindings): { db: Db; end: () => Promise<void>; failed: () => boolean } {
  const { deadlineMs } = configure(env);
  const pool = new Pool({
    connectionString: env.DATABASE_URL,
    max: 6,
    // Later than the deadline below, which then reports the failure as DatabaseUnavailable; these free the connection.
    connectionTimeoutMillis: deadlineMs + 1000,
    query_timeout: deadlineMs + 1000,
  });
  // The pool listens for errors on idle connections only. A connection that fails while a transaction
  // holds it (its backend killed, the server shutting down, the socket cut) reports it as an 'error'
  // event, which unheard would be thrown out of the socket's callback: heard here, it marks the session.
  let connected = false;
  let lost = false;
  pool.on("error", () => {
    lost = true;
  });
  pool.on("connect", (client: { on(event: "error", listener: () => void): unknown }) => {
    connected = true;
    client.on("error", () => {
      lost = true;
    });
  });
  return {
    db: drizzlePool<typeof schema>(pool),
    end: () => pool.end(),
    /** The session never connected, or its connection failed: the driver's errors then carry no SQLSTATE. */
    failed: () => lost || !connected,
  };
}

/**
 * One interactive transaction on a session of its own, within the database deadline (connecting
 * included); a timeout or lost connection is DatabaseUnavailable, and PostgreSQL rolls back.
 */
export async function inSessionTransaction<T>(
  env: Bindings,
  defer: (task: Promise<unknown>) => void,
  work: (tx: Db) => Promise<T>,
): Promise<T> {
  const session = openSession(env);
  const { deadlineMs } = configure(env);
  try {
    return await withDeadline(
      deadlineMs,
      () => session.db.transaction(work),
      () => new DatabaseUnavailable(`the transaction did not finish within ${deadlineMs} ms`),
    );
  } catch (e) {
    // A connection that could not be made or was lost fails the transaction with the driver's own errors
    // ("Connection terminated unexpectedly", "… not queryable", a WebSocket's close), which carry no
    // SQLSTATE: the database was unavailable. PostgreSQL's own errors keep their meaning.
    if (session.failed() && !postgresError(e) && !isDatabaseUnavailable(e)) {
      throw new DatabaseUnavailable("the database connection failed", { cause: e });
    }
    throw e;
  } finally {
    defer(session.end());
  }
}

/** Whether a statement failed on this unique index (SQLSTATE 23505), however the driver wrapped the error. */
export function isUniqueViolation(error: unknown, index: string): boolean {
  type Failure = { code?: unknown; constraint?: unknown; cause?: unknown };
  for (let e = error as Failure | undefined, depth = 0; e && depth < 5; e = e.cause as Failure | undefined, depth++) {
    if (e.code === "23505") return e.constraint === index;
  }
  return false;
}
