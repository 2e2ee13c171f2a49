import { z } from "@hono/zod-openapi";
import { and, eq, ne, sql } from "drizzle-orm";
import { applyIdempotentChange } from "../../changes/change";
import { webhookDeliveries, webhookEndpoints, webhookEvents } from "../../db/schema/webhooks";
import { ApiError, notFound } from "../../http/errors";
import { createAuthRoute, digitsInt, jsonContent, MAX_INT_ID, type Router } from "../../http/openapi";
import { serializeDelivery, webhookDeliveryEnvelopeSchema } from "./schema";

const route = createAuthRoute({
  method: "post",
  path: "/webhook-endpoints/{id}/deliveries/{delivery_id}/retry",
  operationId: "retryWebhookDelivery",
  idempotent: true,
  tags: ["Webhooks"],
  summary: "Re-send a delivery",
  description:
    "Sends a finished delivery (`failed`, or `succeeded` for a deliberate re-send) again: it becomes `pending`, due at once, " +
    "with `attempts` back at 0 and a fresh retry schedule; the receiver gets the same event with the same `webhook-id`. " +
    "The last answer's fields stay until the next attempt replaces them. A delivery still `pending` is a 409 `conflict` " +
    "(it is already being sent), and so is any delivery of a disabled endpoint (re-enable it first).",
  request: {
    params: z.object({
      id: digitsInt((n) => n.positive().max(MAX_INT_ID)).openapi({
        param: { name: "id", in: "path" },
        description: "Webhook endpoint id",
        example: 3,
      }),
      delivery_id: digitsInt((n) => n.positive().max(Number.MAX_SAFE_INTEGER)).openapi({
        param: { name: "delivery_id", in: "path" },
        description: "Delivery id (from the endpoint's delivery log)",
        example: 981,
      }),
    }),
  },
  errors: [404, 409],
  responses: {
    200: { description: "The delivery, pending again", content: jsonContent(webhookDeliveryEnvelopeSchema) },
  },
});

export const registerRetryWebhookDelivery = (api: Router) =>
  api.openapi(route, async (c) => {
    const { id, delivery_id } = c.req.valid("param");
    const { companyId } = c.get("auth");
    return applyIdempotentChange(c, async (change) => {
      const { db } = change;
      const d = webhookDeliveries;
      // The delivery, only under this company's endpoint: another endpoint's or company's delivery is a 404.
      const target = and(eq(d.id, delivery_id), eq(d.endpointId, id), eq(d.companyId, companyId));
      const endpointEnabled = sql`exists (select 1 from ${webhookEndpoints} e where e.id = ${d}.endpoint_id and e.enabled)`;
      // One statement: the state checks are in the UPDATE's WHERE, so a concurrent attempt cannot slip between check and write.
      const updated = db.$with("updated").as(
        db
          .update(d)
          .set({
            status: "pending",
            attempts: 0,
            nextAttemptAt: sql`now()`,
            claimedUntil: null,
            enqueuedAt: sql`now()`,
            succeededAt: null,
            updatedAt: sql`now()`,
          })
          .where(and(target, ne(d.status, "pending"), endpointEnabled))
          .returning(),
      );
      const [row] = await db.with(updated).select().from(updated).innerJoin(webhookEvents, eq(webhookEvents.id, updated.eventId));
      if (!row) {
        // Nothing was written: say why.
        const [current] = await db
          .select({ status: d.status, enabled: webhookEndpoints.enabled })
          .from(d)
          .innerJoin(webhookEndpoints, eq(webhookEndpoints.id, d.endpointId))
          .where(target);
        if (!current) throw notFound("Webhook delivery");
        throw current.enabled
          ? new ApiError(409, "conflict", "The delivery is still pending: it will be attempted without a retry", { status: current.status })
          : new ApiError(409, "conflict", "The endpoint is disabled: re-enable it (PATCH enabled: true) before re-sending", {
              enabled: false,
            });
      }
      change.sendDeliveries([delivery_id]);
      return { status: 200, body: { webhook_delivery: serializeDelivery(row.updated, row.webhook_events) } };
    });
  });
