import { z } from "@hono/zod-openapi";
import { applyIdempotentChange } from "../../changes/change";
import { ApiError, notFound } from "../../http/errors";
import { createAuthRoute, digitsInt, jsonContent, MAX_INT_ID, type Router } from "../../http/openapi";
import { retryDelivery } from "./operations";
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
    return applyIdempotentChange(c, async (change) => {
      const outcome = await retryDelivery(change, id, delivery_id);
      if (!outcome.ok) {
        if (outcome.reason === "missing") throw notFound("Webhook delivery");
        throw outcome.reason === "pending"
          ? new ApiError(409, "conflict", "The delivery is still pending: it will be attempted without a retry", { status: outcome.status })
          : new ApiError(409, "conflict", "The endpoint is disabled: re-enable it (PATCH enabled: true) before re-sending", {
              enabled: false,
            });
      }
      return { status: 200, body: { webhook_delivery: serializeDelivery(outcome.delivery, outcome.event) } };
    });
  });
