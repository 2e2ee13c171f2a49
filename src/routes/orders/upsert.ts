import type { Change } from "../../changes/change";
import { applyChange } from "../../changes/change";
import { externalIdParam } from "../../domain/external";
import type { ApiError } from "../../http/errors";
import { withEtag } from "../../http/etag";
import { createAuthRoute, jsonContent, type Router } from "../../http/openapi";
import { type OrderUpdateWrite, updateOrders } from "./patch";
import { orderEnvelopeSchema } from "./schema";
import type { OrderEnvelope } from "./serialize";
import { createOrders, type OrderCreateWrite } from "./write";
import { type OrderUpsert, orderUpsertSchema } from "./write-schema";

/** An order write of any method: the batch's items, and PUT (an upsert). */
export type OrderWrite =
  | { method: "create"; create: OrderCreateWrite }
  | { method: "update"; update: OrderUpdateWrite }
  | { method: "upsert"; externalId: string; body: OrderUpsert };

/** A write's outcome: the status and envelope its single request answers (with the order's ETag), or its error. */
export type OrderOutcome = { status: 200 | 201; order: OrderEnvelope; etag: string } | { error: ApiError };

/** An upsert as the update it is when its order exists: the create fields as PATCH fields, the contents it gives replaced. */
const asUpdate = (externalId: string, { items, payments, artworks, ...body }: OrderUpsert): OrderUpdateWrite => ({
  address: { externalId },
  body,
  contents: items || payments || artworks ? { items, payments, artworks } : undefined,
});

/** How many rounds an upsert may take when its create keeps losing its external id to another write (which it then updates). */
const ROUNDS = 3;

/**
 * Writes orders of any method with the single routes' own writes: updates and upserts through
 * updateOrders (one read for all of them), plain creates through createOrders at the same time, then the
 * upserts whose order does not exist as one more createOrders. An upsert whose create lost its external
 * id to a concurrent write runs again and updates that order. Outcomes in order.
 */
export async function writeOrders(change: Change, writes: OrderWrite[]): Promise<OrderOutcome[]> {
  const outcomes: (OrderOutcome | undefined)[] = writes.map(() => undefined);
  const creates = writes.flatMap((w, i) => (w.method === "create" ? [{ i, create: w.create }] : []));
  const updates = writes.flatMap((w, i) => (w.method === "update" ? [{ i, update: w.update }] : []));
  let upserts = writes.flatMap((w, i) => (w.method === "upsert" ? [{ i, externalId: w.externalId, body: w.body }] : []));
  const created = (i: number, status: 200 | 201, o: Awaited<ReturnType<typeof createOrders>>[number]) => {
    outcomes[i] = "error" in o ? { error: o.error } : { status, order: o.order, etag: o.etag };
  };
  const settleCreates = async () => {
    const done = await createOrders(
      change,
      creates.map((c) => c.create),
    );
    for (const [k, { i }] of creates.entries()) created(i, 200, done[k]);
  };
  const settleUpdates = async () => {
    const done = await updateOrders(change, [...updates.map((u) => u.update), ...upserts.map((u) => asUpdate(u.externalId, u.body))]);
    updates.forEach(({ i }, k) => {
      const o = done[k];
      outcomes[i] = "error" in o ? o : { status: 200, order: o.order, etag: o.etag };
    });
    const missing: typeof upserts = [];
    upserts.forEach((u, k) => {
      const o = done[updates.length + k];
      if ("error" in o && o.error.status === 404) missing.push(u);
      else outcomes[u.i] = "error" in o ? o : { status: 200, order: o.order, etag: o.etag };
    });
    return missing;
  };
  // One connection in a transaction: one statement after another; over HTTP the two run at once.
  let missing: typeof upserts;
  if (change.locked) {
    if (creates.length) await settleCreates();
    missing = updates.length || upserts.length ? await settleUpdates() : [];
  } else {
    [, missing] = await Promise.all([
      creates.length ? settleCreates() : undefined,
      updates.length || upserts.length ? settleUpdates() : [],
    ]);
  }
  for (let round = 1; missing.length; round++) {
    const done = await createOrders(
      change,
      missing.map((u) => ({ body: { ...u.body, external_id: u.externalId } })),
    );
    const raced: typeof upserts = [];
    missing.forEach((u, k) => {
      const o = done[k];
      if ("error" in o && o.taken && round < ROUNDS) raced.push(u);
      else created(u.i, 201, o);
    });
    if (!raced.length) break;
    // Their orders exist now: updated as the upserts they are.
    upserts = raced;
    updates.length = 0;
    missing = await settleUpdates();
  }
  return outcomes as OrderOutcome[];
}

const route = createAuthRoute({
  method: "put",
  // Queues the change of the order's invoice for the company's accounting (QuickBooks) when its sync is on.
  reaches: ["accounting"],
  path: "/orders/by-external-id/{external_id}",
  operationId: "upsertOrder",
  // Its first statement reads; the writes await the limiter's answer (the change layer's write).
  readsFirst: true,
  tags: ["Orders"],
  summary: "Create or update an order by its external id",
  description:
    "Finds your live order with this `external_id`. When there is none it is created from the body, contents included, as POST /orders " +
    "does (201). Otherwise the fields sent are updated as PATCH /orders/{id} does (200): `title`, `client_id`, `description`, `metadata` " +
    "(merged), and each of `items`, `payments` and `artworks` that is sent replaces the order's live ones of that kind (an empty array " +
    "removes them); a kind not sent is left as it is. The body has the create fields without `external_id` (the path's). Identical " +
    "requests sent at once make one order: the first creates it, the others update it. Events, accounting outbox rows and the ETag are " +
    "those of the POST or PATCH it amounts to (`order.created` or `order.updated`; items replaced resend the invoice's lines).",
  errors: [409],
  request: {
    params: externalIdParam("order"),
    body: { required: true, content: { "application/json": { schema: orderUpsertSchema() } } },
  },
  responses: {
    200: withEtag({
      description: "The order existed and was updated (invoice with totals)",
      content: jsonContent(orderEnvelopeSchema),
    }),
    201: withEtag({
      description: "The order was created (invoice with totals)",
      content: jsonContent(orderEnvelopeSchema),
    }),
  },
});

export const registerUpsertOrder = (api: Router) =>
  api.openapi(route, async (c) => {
    const { external_id: externalId } = c.req.valid("param");
    const body = c.req.valid("json");
    return applyChange(c, async (change) => {
      const [outcome] = await writeOrders(change, [{ method: "upsert", externalId, body }]);
      if ("error" in outcome) throw outcome.error;
      c.header("ETag", outcome.etag);
      return outcome.status === 201 ? c.json(outcome.order, 201) : c.json(outcome.order, 200);
    });
  });
