import { z } from "@hono/zod-openapi";
import type { Context, TypedResponse } from "hono";
import type { JSONValue } from "hono/utils/types";
import { externalIdText } from "../domain/external";
import { admitBatchItems } from "../http/auth";
import type { AppEnv } from "../http/context";
import { ApiError, errorBody, errorSchema, invalid, issuesToDetails } from "../http/errors";
import { withIdempotency } from "../http/idempotency";
import { dbId } from "../http/openapi";
import { schemaOnce } from "../http/schema-once";
import { BATCH_ITEMS_LIMIT } from "../ratelimit";
import { Change } from "./change";

/*
 * Batches (POST /clients/batch, POST /orders/batch): up to 100 creates, updates and upserts of one
 * resource in one request. Each item is validated on its own (an invalid item never reaches SQL), an
 * item addressing a row an earlier item already addresses is refused, and the valid ones are written by
 * the resource's own write (the one its single routes use), set-based, in as few statements as it can.
 * Each item's answer is what its single request answers. Without `atomic` every item is written or
 * refused on its own; with it, all are written in one transaction or none is.
 */

export const BATCH_MAX_ITEMS = 100;
export const BATCH_METHODS = ["create", "update", "upsert"] as const;

/** What a resource's write answers for one item: the single request's status and body, or its error. */
export type ItemOutcome = { status: number; body: unknown } | { error: ApiError };

/** An item as the protocol reads it: its method, the row it addresses, and its `data` validated by that method's schema. */
export type BatchItem<C, U, P> =
  | { method: "create"; external_id?: string; data: C }
  | { method: "update"; id?: number; external_id?: string; data: U }
  | { method: "upsert"; external_id: string; data: P };

/** A resource's side of the protocol. `W` is one write as the resource's write takes it. */
export interface BatchResource<C, U, P, W> {
  /** The `data` schema of each method: the bodies of the single requests (POST, PATCH, PUT). */
  data: { create: z.ZodType<C>; update: z.ZodType<U>; upsert: z.ZodType<P> };
  /** The item's write, or its 400. */
  writeOf(item: BatchItem<C, U, P>): W | ApiError;
  /** The rows an item addresses or claims (`id:7`, `external_id:abc`): a later item of the batch may not touch them too. */
  touches(write: W): string[];
  /** Writes these in as few statements as possible (the single routes' own write); an outcome per write, in order. */
  write(change: Change, writes: W[]): Promise<ItemOutcome[]>;
}

/** The request body: `atomic` and the items (each validated on its own, then by the resource). */
export function batchRequestSchema(name: string, itemRef: string) {
  return z
    .strictObject({
      atomic: z.boolean().default(false).openapi({
        description: "`false` (default): every item is written or refused on its own. `true`: all are written or none is",
      }),
      items: z
        .array(z.unknown())
        .min(1)
        .max(BATCH_MAX_ITEMS)
        // Each item is validated by itself (a bad item refuses only itself): the body takes any item, and the
        // item's schema is the one it should match (a validating client must not refuse the batch for one item).
        .openapi({
          items: { anyOf: [{ $ref: `#/components/schemas/${itemRef}` }, {}] },
          description:
            `1–${BATCH_MAX_ITEMS} items, answered in order. Each should match \`${itemRef}\`; each is checked on its own, so one ` +
            "that is not is that item's 400 and the others are still answered",
        }),
    })
    .openapi(`${name}BatchRequest`);
}

/** The answer: one result per item, in item order. */
export function batchResponseSchema(name: string, success: z.ZodType) {
  const result = z
    .object({
      index: z.number().int().openapi({ description: "The item's position in `items` (from 0)" }),
      status: z
        .number()
        .int()
        .openapi({
          description:
            "What the item's single request answers (200 or 201 written; 400, 404, 409, 412 refused), or 424 for an item of an " +
            "atomic batch that was not written because another item failed (`rolled_back`)",
          example: 200,
        }),
      body: z.union([success, errorSchema()]).openapi({ description: "The single request's body, or the error envelope" }),
    })
    .openapi(`${name}BatchItemResult`);
  return z.object({ data: z.array(result) }).openapi(`${name}BatchResult`);
}

/** An item's `method`, `id`, `external_id` and `data`, with the resource's schemas for each method's `data` (for the document). */
export function batchItemSchema<C extends z.ZodType, U extends z.ZodType, P extends z.ZodType>(
  name: string,
  data: { create: C; update: U; upsert: P },
) {
  const create = z
    .strictObject({
      method: z.literal("create"),
      external_id: ids().externalId.optional().openapi({ description: "The new row's external id (or `data.external_id`)" }),
      data: data.create,
    })
    .openapi(`${name}BatchCreate`);
  const update = z
    .strictObject({
      method: z.literal("update"),
      id: ids().id.optional().openapi({ description: "The row to update (or `external_id`)" }),
      external_id: ids().externalId.optional().openapi({ description: "The row to update, by its external id (or `id`)" }),
      data: data.update,
    })
    .openapi(`${name}BatchUpdate`);
  const upsert = z
    .strictObject({
      method: z.literal("upsert"),
      external_id: ids().externalId.openapi({ description: "The row to update, or to create with this external id" }),
      data: data.upsert,
    })
    .openapi(`${name}BatchUpsert`);
  return z.discriminatedUnion("method", [create, update, upsert]).openapi(`${name}BatchItem`, {
    description: "`create` (as POST), `update` (as PATCH, by `id` or `external_id`) or `upsert` (as PUT by external id)",
  });
}

/** The schemas of an item's `id` and `external_id`: a row's id, and the external id of every resource that has one. */
const ids = schemaOnce(() => ({ id: dbId(), externalId: externalIdText() }));

/** The row an update item addresses, as the resources' writes take it. */
export const itemAddress = (item: { id?: number; external_id?: string }): { id: number } | { externalId: string } =>
  item.id !== undefined ? { id: item.id } : { externalId: item.external_id! };

/** A create item's `data` with its `external_id`, given on the item or in `data` (the same, if both), or the item's 400. */
export function createData<C extends { external_id?: string | null }>(item: { external_id?: string; data: C }): C | ApiError {
  const { external_id: given, data } = item;
  if (given !== undefined && data.external_id !== undefined && data.external_id !== given) {
    return invalid("Invalid item", [{ field: "external_id", message: "Differs from data.external_id: give it once" }]);
  }
  return { ...data, external_id: data.external_id ?? given };
}

/** A row an item addresses or claims, as `touches` names it (`id:7`, `external_id:abc`). */
export const addressKey = (address: { id: number } | { externalId: string }) =>
  "id" in address ? `id:${address.id}` : `external_id:${address.externalId}`;

/**
 * Reads one item: its envelope (a 400 "Invalid item" naming `method`, `id`, `external_id` or `data`),
 * then its `data` with its method's schema, whose 400 is the single request's own ("Invalid request body",
 * the same fields).
 */
function readItem<C, U, P>(raw: unknown, data: BatchResource<C, U, P, unknown>["data"]): BatchItem<C, U, P> | ApiError {
  const envelope = z
    .strictObject({ method: z.enum(BATCH_METHODS), id: ids().id.optional(), external_id: ids().externalId.optional(), data: z.unknown() })
    .superRefine((item, ctx) => {
      if (item.method === "update" && (item.id === undefined) === (item.external_id === undefined)) {
        ctx.addIssue({ code: "custom", path: ["id"], message: "Give exactly one of id and external_id" });
      }
      if (item.method !== "update" && item.id !== undefined) {
        ctx.addIssue({
          code: "custom",
          path: ["id"],
          message: `A ${item.method} takes no id (an upsert addresses its row by external_id)`,
        });
      }
      if (item.method === "upsert" && item.external_id === undefined)
        ctx.addIssue({ code: "custom", path: ["external_id"], message: "Required" });
    })
    .safeParse(raw);
  if (!envelope.success) return new ApiError(400, "invalid_request", "Invalid item", issuesToDetails(envelope.error.issues));
  const parsed = data[envelope.data.method].safeParse(envelope.data.data);
  if (!parsed.success) return new ApiError(400, "invalid_request", "Invalid request body", issuesToDetails(parsed.error.issues));
  return { ...envelope.data, data: parsed.data } as BatchItem<C, U, P>;
}

const ROLLED_BACK_STATUS = 424;

type BatchAnswer = { data: { index: number; status: number; body: JSONValue }[] };

/** The answer of a batch whose items are settled: each item's status and body, in order (an error's carries the batch's request id). */
const answer = (requestId: string, outcomes: ItemOutcome[]): BatchAnswer => ({
  data: outcomes.map((o, index) =>
    "error" in o
      ? { index, status: o.error.status as number, body: errorBody(requestId, o.error.code, o.error.message, o.error.details) as JSONValue }
      : { index, status: o.status, body: o.body as JSONValue },
  ),
});

/** An atomic batch where an item failed: the failed ones keep their errors, the others say they were rolled back. */
function rolledBack(outcomes: (ItemOutcome | undefined)[]) {
  const failed = outcomes.flatMap((o, i) => (o && "error" in o ? [i] : []));
  return outcomes.map(
    (o): ItemOutcome =>
      o && "error" in o
        ? o
        : {
            error: new ApiError(
              ROLLED_BACK_STATUS as 400,
              "rolled_back",
              `Not written: ${failed.length === 1 ? `item ${failed[0]}` : `items ${failed.join(", ")}`} of this atomic batch failed`,
              { failed },
            ),
          },
  );
}

/** Thrown out of an atomic batch's transaction (rolling it back, key included) with the answer to send. */
class AtomicBatchFailed extends Error {
  constructor(readonly body: ReturnType<typeof answer>) {
    super("atomic batch rolled back");
  }
}

/**
 * Runs a batch request: validates each item, refuses repeats, counts the items against the batch-item
 * limit, writes the rest with the resource's write (on the request's connection, or in the
 * Idempotency-Key's transaction; an atomic batch in a transaction of its own that rolls back when any
 * item fails), and answers 200 with each item's result. Events and outbox rows are published after
 * the commit; a replayed key answers the stored result and writes nothing.
 */
export async function runBatch<C, U, P, W>(
  c: Context<AppEnv>,
  body: { atomic: boolean; items: unknown[] },
  resource: BatchResource<C, U, P, W>,
): Promise<TypedResponse<BatchAnswer, 200, "json">> {
  const outcomes: (ItemOutcome | undefined)[] = body.items.map(() => undefined);
  const valid: { index: number; write: W }[] = [];
  const claimed = new Map<string, number>();
  body.items.forEach((raw, index) => {
    const item = readItem(raw, resource.data);
    if (item instanceof ApiError) {
      outcomes[index] = { error: item };
      return;
    }
    const write = resource.writeOf(item);
    if (write instanceof ApiError) {
      outcomes[index] = { error: write };
      return;
    }
    const taken = resource.touches(write).find((key) => claimed.has(key));
    if (taken !== undefined) {
      const [what, value] = [taken.slice(0, taken.indexOf(":")), taken.slice(taken.indexOf(":") + 1)];
      outcomes[index] = {
        error: new ApiError(409, "conflict", `Item ${claimed.get(taken)} of this batch already addresses this row`, [
          { field: what, message: `${what} ${value} is addressed by item ${claimed.get(taken)} too: a row may appear once per batch` },
        ]),
      };
      return;
    }
    for (const key of resource.touches(write)) claimed.set(key, index);
    valid.push({ index, write });
  });
  // Counted before anything is written (all of them, or a 429 that counts none).
  await admitBatchItems(c, body.items.length);
  if (body.atomic && valid.length < body.items.length) return c.json(answer(c.get("requestId"), rolledBack(outcomes)), 200);

  const settle = (written: ItemOutcome[]) => {
    const all = [...outcomes];
    valid.forEach(({ index }, k) => {
      const o = written[k];
      all[index] = o;
    });
    return all as ItemOutcome[];
  };
  try {
    return await withIdempotency(c, async (db, keyed) => {
      const change = new Change(c, db, keyed);
      const writes = valid.map((v) => v.write);
      const settled = body.atomic
        ? await change.inLockedTransaction(async (locked) => {
            const all = settle(await resource.write(locked, writes));
            if (all.some((o) => "error" in o)) throw new AtomicBatchFailed(answer(c.get("requestId"), rolledBack(all)));
            return all;
          })
        : settle(valid.length ? await resource.write(change, writes) : []);
      return { status: 200 as const, body: answer(c.get("requestId"), settled), afterCommit: () => change.publish() };
    });
  } catch (error) {
    if (error instanceof AtomicBatchFailed) return c.json(error.body, 200);
    throw error;
  }
}

/** What a batch costs against the rate limit, for the routes' descriptions. */
export const BATCH_COST =
  `A batch counts as one request against the 300 requests per minute of the API key, and its items against ${BATCH_ITEMS_LIMIT} batch ` +
  "items per minute (all of a batch's items or none: a batch that does not fit is a 429 whose `details.items_remaining` says how many fit now).";
