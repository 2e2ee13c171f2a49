import { neon, neonConfig, Pool } from "@neondatabase/serverless";
import { drizzle as drizzleHttp } from "drizzle-orm/neon-http";
import { drizzle as drizzlePool } from "drizzle-orm/neon-serverless";
import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";
import pLimit from "p-limit";
import * as schema from "../db/schema";
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
 * True when `error` (or what it wraps: drizzle's `cause`, the Neon driver's `sourceError`) is a
 * DatabaseUnavailable, or the deadline signal's TimeoutError (an answer whose body was still being read
 * when the deadline passed: the driver reads it after the fetch function has returned).
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  for (let e = error, depth = 0; e && typeof e === "object" && depth < 5; depth++) {
    if (e instanceof DatabaseUnavailable || (e as { name?: unknown }).name === "TimeoutError") return true;
    const next = e as { cause?: unknown; sourceError?: unknown };
    e = next.sourceError ?? next.cause;
  }
  return false;
}

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
  const limit = pLimit(DB_MAX_CONCURRENCY);
  if (env.NEON_LOCAL_PROXY) {
    // Local stack: one address serves Neon's SQL over HTTP and a plain-ws proxy speaking raw PostgreSQL (no pipelining).
    const proxy = env.NEON_LOCAL_PROXY;
    neonConfig.fetchEndpoint = () => `http://${proxy}/sql`;
    neonConfig.wsProxy = (host, port) => `${proxy}/v1?address=${host}:${port}`;
    neonConfig.useSecureWebSocket = false;
    neonConfig.pipelineConnect = false;
  }
  // Every HTTP query goes through here: the isolate-wide cap, and one deadline for waiting, connecting and the answer.
  // (A late answer's statement may still commit: each is atomic, so nothing is ever half-written.)
  const timedOut = () => new DatabaseUnavailable(`no answer from the database within ${deadlineMs} ms`);
  const send = async (url: string, init: RequestInit, signal: AbortSignal) => {
    if (signal.aborted) throw timedOut();
    let res: Response;
    try {
      res = await fetch(url, { ...init, signal });
    } catch (e) {
      throw signal.aborted ? timedOut() : new DatabaseUnavailable("the database could not be reached", { cause: e });
    }
    // 400 carries a PostgreSQL error for the caller; other failures are the service's.
    if (res.status >= 500) throw new DatabaseUnavailable(`the database answered HTTP ${res.status}`);
    return res;
  };
  neonConfig.fetchFunction = (url: string, init: RequestInit) => {
    // With a slot free (the usual case) the fetch's own signal is the whole deadline: the answer's body
    // is read under it too. Only a call that may wait for a slot needs the race to bound that wait.
    if (limit.activeCount + limit.pendingCount < limit.concurrency) return limit(() => send(url, init, AbortSignal.timeout(deadlineMs)));
    return withDeadline(deadlineMs, (signal) => limit(() => send(url, init, signal)), timedOut);
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
  if (httpDb?.url !== env.DATABASE_URL) httpDb = { url: env.DATABASE_URL, db: drizzleHttp(neon(env.DATABASE_URL), { schema }) };
  return httpDb.db;
}

/**
 * A WebSocket session for work that must hold a transaction open across round trips (read, decide
 * in code, write under the same locks). Opens nothing until the first query; the caller ends it
 * (Workers must not reuse sockets across requests: end it in the same request, via waitUntil).
 */
export function openSession(env: Bindings): { db: Db; end: () => Promise<void> } {
  const { deadlineMs } = configure(env);
  const pool = new Pool({
    connectionString: env.DATABASE_URL,
    max: 6,
    // Later than the deadline below, which then reports the failure as DatabaseUnavailable; these free the connection.
    connectionTimeoutMillis: deadlineMs + 1000,
    query_timeout: deadlineMs + 1000,
  });
  pool.on("error", () => {}); // a broken idle connection fails its next query, which reports it
  return { db: drizzlePool(pool, { schema }), end: () => pool.end() };
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
  } finally {
    defer(session.end());
  }
}

/** Whether a statement failed on a unique index (SQLSTATE 23505), however the driver wrapped the error. */
export function isUniqueViolation(error: unknown): boolean {
  for (let e = error as { code?: unknown; cause?: unknown } | undefined, depth = 0; e && depth < 5; e = e.cause as typeof e, depth++) {
    if (e.code === "23505") return true;
  }
  return false;
}
