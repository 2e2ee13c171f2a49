import { applyIdempotentChange } from "../../changes/change";
import { createAuthRoute, jsonContent, type Router } from "../../http/openapi";
import { orderEnvelopeSchema } from "./schema";
import { createOrders } from "./write";
import { orderCreateSchema } from "./write-schema";

const route = createAuthRoute({
  method: "post",
  // Queues the change of the order's invoice for the company's accounting (QuickBooks) when its sync is on.
  reaches: ["accounting"],
  path: "/orders",
  operationId: "createOrder",
  idempotent: true,
  tags: ["Orders"],
  summary: "Create an order (project with its default invoice)",
  description:
    "Creates the project and its default invoice, and the line items, payments and artworks given, atomically (one statement). " +
    "`items`, `payments` and `artworks` take the fields of POST /orders/{id}/items, /payments and /artworks; items are placed in " +
    "array order. `client_id` must be a live client of your company; " +
    'a missing, soft-deleted or other company\'s client is the same 400 `invalid_request` with `details: [{ field: "client_id" }]`. ' +
    "The invoice starts with the client's tax exemption (flag and reason), no tax row and no discount. " +
    "When accounting sync applies (`quickbooks_enabled` when sent, else the company setting), an accounting `create` is queued with it (all or nothing). " +
    "`external_id` must not be another live order's (409 `conflict`). The answer's totals count the contents created.",
  errors: [409],
  request: { body: { required: true, content: { "application/json": { schema: orderCreateSchema() } } } },
  responses: {
    200: { description: "The created project and invoice (with totals)", content: jsonContent(orderEnvelopeSchema) },
  },
});

export const registerCreateOrder = (api: Router) =>
  api.openapi(route, async (c) => {
    const body = c.req.valid("json");
    // One statement (atomic, one round trip): client check, project, invoice, contents, the optional outbox
    // row and the webhook event (createOrders, shared with the upsert, the batch and the import).
    return applyIdempotentChange(c, async (change) => {
      const [outcome] = await createOrders(change, [{ body }]);
      if ("error" in outcome) throw outcome.error;
      return { status: 200, body: outcome.order };
    });
  });
