import { and, eq, lt, sql } from "drizzle-orm";
import type { Context, TypedResponse } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { idempotencyKeys } from "../db/schema/idempotency";
import type { Db } from "../platform/db";
import { sha256Hex } from "./auth";
import type { AppEnv } from "./context";
import { ApiError } from "./errors";
import { IDEMPOTENCY_HEADER, IDEMPOTENCY_TTL_HOURS, REPLAYED_HEADER } from "./idempotency-contract";

export interface WriteResult<T, S extends ContentfulStatusCode> {
  status: S;
  body: T;
  /** Runs only after the write committed (and not on a replay): queue notifications and the like. */
  afterCommit?: () => void;
}

const mismatch = (what: string) =>
  new ApiError(422, "invalid_request", `${IDEMPOTENCY_HEADER} was already used with a different ${what}`, [
    // Named as header validation names it (lower case), so both answers point at the same field.
    { field: IDEMPOTENCY_HEADER.toLowerCase(), message: `Already used with a different ${what}; send a new key for a new request` },
  ]);

/**
 * Runs a write, idempotently when the request carries `Idempotency-Key`. Without it the write runs
 * on the request's HTTP path as it is. With it, one transaction claims the key (a concurrent request
 * with the same key waits on the key's unique index until the first commits, then replays it), runs
 * the write on the transaction and stores the response: the write and its key commit together or not
 * at all (an error thrown by `run` rolls both back, so 4xx answers are never stored).
 */
export async function withIdempotency<T, S extends ContentfulStatusCode>(
  c: Context<AppEnv>,
  /** `keyed`: `db` is the key's interactive transaction (lock rows directly), else the request's HTTP path. */
  run: (db: Db, keyed: boolean) => Promise<WriteResult<T, S>>,
): Promise<TypedResponse<T, S, "json">> {
  // A replay sends the stored text as it was; typed as the JSON response the route declares.
  const send = (text: string, status: S) =>
    c.body(text, status, { "content-type": "application/json" }) as unknown as TypedResponse<T, S, "json">;
  const key = c.req.header(IDEMPOTENCY_HEADER);
  if (key === undefined) {
    const result = await run(c.get("db"), false);
    result.afterCommit?.();
    return send(JSON.stringify(result.body), result.status);
  }
  const { companyId } = c.get("auth");
  const method = c.req.method;
  // The query string is part of what the key names: the same key with another query is another request.
  const { pathname, search } = new URL(c.req.url);
  const path = pathname + search;
  const requestHash = await sha256Hex(await c.req.text());
  // On a readsFirst route the limiter may still be answering: wait here, not inside the key's
  // transaction, which would hold a database session meanwhile (a refusal rolls the claim back either way).
  await c.get("admitted")();
  const outcome = await c.get("transaction")(async (tx) => {
    // Claims the key, or takes over an expired one; waits while another transaction holds it.
    const claimed = await tx
      .insert(idempotencyKeys)
      .values({ companyId, key, method, path, requestHash, expiresAt: sql`now() + make_interval(hours => ${IDEMPOTENCY_TTL_HOURS})` })
      .onConflictDoUpdate({
        target: [idempotencyKeys.companyId, idempotencyKeys.key],
        set: {
          method,
          path,
          requestHash,
          responseStatus: null,
          responseBody: null,
          createdAt: sql`now()`,
          expiresAt: sql`now() + make_interval(hours => ${IDEMPOTENCY_TTL_HOURS})`,
        },
        setWhere: lt(idempotencyKeys.expiresAt, sql`now()`),
      })
      .returning({ key: idempotencyKeys.key });
    if (!claimed.length) {
      const [stored] = await tx
        .select()
        .from(idempotencyKeys)
        .where(and(eq(idempotencyKeys.companyId, companyId), eq(idempotencyKeys.key, key)));
      if (stored.method !== method || stored.path !== path) throw mismatch("method, path or query string");
      if (stored.requestHash !== requestHash) throw mismatch("body");
      return { replayed: true as const, status: stored.responseStatus as S, text: stored.responseBody as string };
    }
    const result = await run(tx, true);
    const text = JSON.stringify(result.body);
    await tx
      .update(idempotencyKeys)
      .set({ responseStatus: result.status, responseBody: text })
      .where(and(eq(idempotencyKeys.companyId, companyId), eq(idempotencyKeys.key, key)));
    return { replayed: false as const, status: result.status, text, afterCommit: result.afterCommit };
  });
  if (outcome.replayed) c.header(REPLAYED_HEADER, "true");
  else outcome.afterCommit?.();
  return send(outcome.text, outcome.status);
}

/** Rows removed per cron pass at most: one bounded statement, the next pass takes the rest. */
export const PURGE_LIMIT = 10_000;

/** Deletes expired keys (they are already ignored); run by the cron pass. Answers how many went. */
export async function purgeExpiredIdempotencyKeys(db: Db): Promise<number> {
  const gone = await db
    .delete(idempotencyKeys)
    .where(
      sql`(${idempotencyKeys.companyId}, ${idempotencyKeys.key}) in (
        select company_id, key from idempotency_keys where expires_at < now() order by expires_at limit ${PURGE_LIMIT})`,
    )
    .returning({ key: idempotencyKeys.key });
  return gone.length;
}
