import { type SQL, sql, type WithSubquery } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { NeonHttpDatabase } from "drizzle-orm/neon-http";
import type { SelectedFields } from "drizzle-orm/pg-core";
import type { Context, TypedResponse } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { notifyOutbox } from "../accounting/outbox";
import type { AppEnv, Variables } from "../http/context";
import { withIdempotency } from "../http/idempotency";
import { type Origin, requestOrigin } from "../http/request-context";
import type { Db } from "../platform/db";
import type { Bindings } from "../platform/env";
import { enqueueWebhookDeliveries } from "../webhooks/enqueue";
import { type EventData, eventData } from "../webhooks/event-data";
import { type OriginSql, publishWebhookEvents, type WrittenEvent } from "../webhooks/events";
import type { ResourceEvents } from "../webhooks/events-catalog";
import { type Effects, effectsOf, type Written } from "./effects";

/*
 * How a write route writes: it says what it changes (a statement's own CTEs and select, the events and
 * outbox rows that go with them), and the change does the rest. Each statement gets its effects' CTEs
 * and answers what they wrote; a change read under a row version is retried under row locks when the
 * version moved (readThenWrite); once the change has committed, its outbox rows go to accounting
 * delivery and its events (payload, deliveries) to webhook delivery. docs/contributing-routes.md.
 */

/** The JSON text of an event's object as this change left it (a resource's renderer fits). */
export type EventObject = (
  db: Db,
  event: { companyId: number; type: string; resourceId: string },
) => string | undefined | Promise<string | undefined>;

/** An event's data (its object, or a reference to a large one) from an EventObject; undefined when it makes no object. */
type EventDataOf = (db: Db, event: { companyId: number; type: string; resourceId: string }) => Promise<EventData | undefined>;

/**
 * What a change needs of its request: the token's company, the rate limiter's verdict, the log, a way to
 * open a transaction, work after the response, the request's database, the Worker's bindings (queues).
 * A request's Hono context is one; the operator's import builds one for its transaction.
 */
export interface ChangeContext {
  env: Bindings;
  // `get`, not hono's `c.var`, which builds a new object of every variable on each read.
  get<K extends ChangeVariable>(key: K): Pick<Variables, ChangeVariable>[K];
  /** Who causes the change, when not the request's token (the operator's import: `system`); else requestOrigin. */
  origin?: Origin;
}
export type ChangeVariable = "auth" | "admitted" | "logger" | "transaction" | "defer" | "db" | "requestId";

/** One statement of a change: its own CTEs, writing ones first, and what is written with them. */
export interface Statement extends Effects {
  with: WithSubquery[];
  /**
   * A statement run just before, in the same transaction, that takes the locks this write must hold
   * before it reads (`select … for update`, `pg_advisory_xact_lock`). The write's snapshot is taken once
   * they are held, so it sees everything their previous holders committed: what one statement alone
   * cannot do (it reads the snapshot of its start, and a row lock only waits). Over HTTP the two are one
   * batch (one round trip, one transaction); in a transaction, two statements.
   */
  lock?: SQL;
}

/**
 * The company in a statement built once and run for many requests (`Change.writePrepared`): a
 * placeholder each run fills with the request's company.
 */
export const COMPANY_ID = sql<number>`${sql.placeholder("company")}::int`;

/** The change's origin in a prepared statement: placeholders each run fills (Change.writePrepared). */
const ORIGIN_PLACEHOLDERS: OriginSql = {
  actorType: sql`${sql.placeholder("actor_type")}::text`,
  actorId: sql`${sql.placeholder("actor_id")}::text`,
  requestId: sql`${sql.placeholder("request_id")}::text`,
};

/** A select over a statement's CTEs that drizzle can prepare (build once) and run with its placeholders' values. */
export interface PreparableSelect<R> {
  prepare(name: string): { execute(values?: Record<string, unknown>): Promise<R[]> };
  execute(values?: Record<string, unknown>): Promise<R[]>;
}

/** What `writePrepared` builds once: the statement, with COMPANY_ID and placeholders for the request's values, and its select. */
export type PreparedWrite<R> = (db: Db) => { statement: Statement; query: (q: StatementQuery) => PreparableSelect<R> };

/**
 * Statements built once per connection object, by name: the request path's SQL over HTTP is one per
 * isolate (createDb), so each is built on its first use in the isolate. Building a statement of many
 * CTEs (drizzle's SQL text and parameter list) costs more CPU than the rest of the request.
 */
const prepared = new WeakMap<Db, Map<string, { execute(values?: Record<string, unknown>): Promise<unknown[]> }>>();

/** `db.with(…)` over the statement's CTEs and its effects', whose select also answers what the effects wrote. */
const statementQuery = (db: Db, ctes: WithSubquery[], written: ReturnType<typeof effectsOf>["written"]) => ({
  select: <S extends SelectedFields>(fields: S) => db.with(...ctes).select({ ...fields, written }),
});
export type StatementQuery = ReturnType<typeof statementQuery>;

/** When the optimistic attempt missed: what the log says, and the error if the locked one misses too. */
export interface Retry {
  log: string;
  fields: Record<string, unknown>;
  failed: string;
}

/** A write route's change: the statements that write it, and what they wrote to publish after commit. */
export class Change {
  private readonly written: Written = { outbox: [], events: [] };
  private readonly deliveries: number[] = [];
  private readonly resumed: number[] = [];
  private object: EventDataOf | undefined;

  constructor(
    private readonly c: ChangeContext,
    /** The connection: the request's SQL over HTTP, or an interactive transaction. */
    readonly db: Db,
    /** In a transaction (an Idempotency-Key's, or the locked retry): read with row locks (`for update`). */
    readonly locked: boolean,
  ) {}

  get companyId(): number {
    return this.c.get("auth").companyId;
  }

  /** Who causes this change and in which request: written on each of its events. */
  get origin(): Origin {
    return this.c.origin ?? requestOrigin(this.c);
  }

  private originSql(): OriginSql {
    const { actor, requestId } = this.origin;
    return { actorType: actor.type, actorId: actor.id, requestId };
  }

  /**
   * Runs one statement: `statement.with`, then its effects' CTEs, and the select `query` builds over them
   * (from `q.select`). Answers the rows. It starts only once the rate limiter let the request through,
   * so a `readsFirst` route may read before it.
   */
  async write<R extends { written: Written | null }>(
    statement: Statement,
    query: (q: StatementQuery) => PromiseLike<R[]>,
  ): Promise<Omit<R, "written">[]> {
    const select = this.select(statement, this.companyId, this.originSql(), query);
    await this.c.get("admitted")();
    return this.answered(statement.lock ? await this.afterLock(statement.lock, select) : await select);
  }

  /**
   * `write` for a statement whose text is the same for every request, its request's values in
   * placeholders (`values`, and COMPANY_ID for the company): on the request path (SQL over HTTP, one
   * connection object per isolate) built once and kept as `name`; in a transaction, whose connection
   * lives for one request, built for each run. No `lock`.
   */
  async writePrepared<R extends { written: Written | null }>(
    name: string,
    build: PreparedWrite<R>,
    values: Record<string, unknown>,
  ): Promise<Omit<R, "written">[]> {
    const make = () => {
      const { statement, query } = build(this.db);
      if (statement.lock) throw new Error(`${name}: a prepared write takes no lock statement`);
      return this.select(statement, COMPANY_ID, ORIGIN_PLACEHOLDERS, query);
    };
    const statement = this.locked ? make() : this.preparedOnce(name, make);
    await this.c.get("admitted")();
    const { actor, requestId } = this.origin;
    const origin = { actor_type: actor.type, actor_id: actor.id, request_id: requestId };
    return this.answered((await statement.execute({ ...values, company: this.companyId, ...origin })) as R[]);
  }

  /** The statement `name` prepared on this change's connection, built by `make` on its first use. */
  private preparedOnce(name: string, make: () => PreparableSelect<unknown>) {
    let byName = prepared.get(this.db);
    if (!byName) {
      byName = new Map();
      prepared.set(this.db, byName);
    }
    let statement = byName.get(name);
    if (!statement) {
      statement = make().prepare(name);
      byName.set(name, statement);
    }
    return statement;
  }

  /** The statement's select: its CTEs, then its effects' (for the company `companyId`, caused by `origin`), and `query` over them. */
  private select<Q>(statement: Statement, companyId: number | SQL, origin: OriginSql, query: (q: StatementQuery) => Q): Q {
    const effects = effectsOf(this.db, companyId, origin, statement);
    return query(statementQuery(this.db, [...statement.with, ...effects.ctes], effects.written));
  }

  /** The statement's rows, without the column that says what its effects wrote (kept for publish). */
  private answered<R extends { written: Written | null }>(rows: R[]): Omit<R, "written">[] {
    const written = rows.find((row) => row.written)?.written;
    if (written) this.add(written);
    return rows.map(({ written: _, ...row }) => row);
  }

  /** `select`, run once `lock` is held (Statement.lock): a batch over HTTP, the next statement in a transaction. */
  private async afterLock<R>(lock: SQL, select: PromiseLike<R[]>): Promise<R[]> {
    if (this.locked) {
      await this.db.execute(lock);
      return select;
    }
    // Outside a transaction the change's connection is the request's SQL over HTTP (createDb).
    const http = this.db as unknown as NeonHttpDatabase;
    const [, rows] = await http.batch([http.execute(lock), select as unknown as BatchItem<"pg">]);
    return rows as R[];
  }

  /**
   * How the events' objects are made after commit (without it, delivery renders them from the rows). A
   * change writing several kinds of rows (a batch's creates and updates) gives one for each: the last
   * given that answers an event's object makes it. `events` is the resource whose object it makes: an
   * object too large to send becomes a reference to where it is read (src/webhooks/event-data.ts).
   */
  objects(events: ResourceEvents, object: EventObject): void {
    const earlier = this.object;
    const data: EventDataOf = async (db, event) => {
      const json = await object(db, event);
      return json === undefined ? undefined : eventData(events.resource, events.path, event.resourceId, json);
    };
    this.object = earlier ? async (db, event) => (await data(db, event)) ?? earlier(db, event) : data;
  }

  /** A line of the request's log (a write redone under row locks, say). */
  log(message: string, fields: Record<string, unknown>): void {
    this.c.get("logger").info(message, fields);
  }

  /** Existing deliveries to hand to the queue after commit (a re-send). */
  sendDeliveries(ids: number[]): void {
    this.deliveries.push(...ids);
  }

  /** After commit, the deliveries that waited for an endpoint go out (it was re-enabled). */
  resumeDeliveries(endpointId: number): void {
    this.resumed.push(endpointId);
  }

  /**
   * A change that reads, checks in code, then writes under what it read (its statement writes nothing
   * when the rows moved on, and `attempt` answers undefined). First optimistic: two statements over
   * HTTP, no transaction. When that misses, again in an interactive transaction whose `attempt` reads
   * with row locks (`change.locked`), where the write cannot miss. Inside a transaction already (an
   * Idempotency-Key's), only the locked attempt runs.
   */
  async readThenWrite<T>(attempt: (change: Change) => Promise<T | undefined>, retry: Retry): Promise<T> {
    const locked = async (change: Change) => {
      const result = await attempt(change);
      if (result === undefined) throw new Error(retry.failed);
      return result;
    };
    if (this.locked) return locked(this);
    const result = await attempt(this);
    if (result !== undefined) return result;
    this.c.get("logger").info(retry.log, retry.fields);
    return this.inLockedTransaction(locked);
  }

  /**
   * Runs `work` so that when it fails the change can go on: in a transaction (`locked`), under a
   * savepoint that its failure rolls back to (a failed statement aborts the whole transaction
   * otherwise, and every later statement fails with it); on the request's SQL over HTTP each statement
   * is its own transaction, so `work` runs as it is. For a write that can lose a race the database
   * refuses (a unique index): the caller catches the refusal, then reads who won and answers for it.
   */
  async undoable<T>(work: () => Promise<T>): Promise<T> {
    if (!this.locked) return work();
    await this.db.execute(sql`savepoint change_write`);
    let result: T;
    try {
      result = await work();
    } catch (error) {
      // Undone, so the transaction takes statements again; a connection lost meanwhile fails with `error` itself.
      await this.db.execute(sql`rollback to savepoint change_write`).catch(() => undefined);
      throw error;
    }
    await this.db.execute(sql`release savepoint change_write`);
    return result;
  }

  /**
   * Runs `work` in an interactive transaction with a change of its own that reads with row locks
   * (`locked`); once it committed, what it wrote is this change's (published with it). For a change
   * already in a transaction, `work` runs on it.
   */
  async inLockedTransaction<T>(work: (change: Change) => Promise<T>): Promise<T> {
    if (this.locked) return work(this);
    let inTransaction: Change | undefined;
    const answer = await this.c.get("transaction")((tx) => {
      inTransaction = new Change(this.c, tx, true);
      return work(inTransaction);
    });
    // Committed: what the transaction wrote is this change's.
    if (inTransaction) this.adopt(inTransaction);
    return answer;
  }

  private add(written: Written) {
    this.written.outbox.push(...written.outbox);
    this.written.events.push(...written.events);
  }

  private adopt(other: Change) {
    this.add(other.written);
    this.deliveries.push(...other.deliveries);
    this.resumed.push(...other.resumed);
    this.object ??= other.object;
  }

  /** After commit: outbox rows to accounting delivery, events and deliveries to webhook delivery (after the response). */
  publish(): void {
    const { c, object } = this;
    notifyOutbox(c.env, this.written.outbox, c.get("defer"));
    const render =
      object &&
      ((event: WrittenEvent) => object(c.get("db"), { companyId: this.companyId, type: event.type, resourceId: event.resourceId }));
    publishWebhookEvents(c, this.written.events, render);
    if (this.deliveries.length) c.get("defer")(enqueueWebhookDeliveries(c.env, this.deliveries));
    // An endpoint turned back on (rare): its waiting deliveries are handed to the queue. The queue's
    // module (with delivery itself) is loaded only then, not by every write route's first request.
    for (const endpointId of this.resumed)
      c.get("defer")(import("../webhooks/queue").then((queue) => queue.resumeEndpointDeliveries(c.get("db"), c.env, endpointId)));
  }
}

/** Runs a write route's change on the request's connection; what it wrote is published once `work` is done. */
export async function applyChange<T>(c: Context<AppEnv>, work: (change: Change) => Promise<T>): Promise<T> {
  const change = new Change(c, c.get("db"), false);
  const result = await work(change);
  change.publish();
  return result;
}

/**
 * The same for a route that takes `Idempotency-Key` (withIdempotency): with a key, the change runs in
 * the key's transaction (locked) and is published after that commits; a replay publishes nothing.
 */
export function applyIdempotentChange<T, S extends ContentfulStatusCode>(
  c: Context<AppEnv>,
  work: (change: Change) => Promise<{ status: S; body: T }>,
): Promise<TypedResponse<T, S, "json">> {
  return withIdempotency(c, async (db, keyed) => {
    const change = new Change(c, db, keyed);
    const answer = await work(change);
    return { ...answer, afterCommit: () => change.publish() };
  });
}
