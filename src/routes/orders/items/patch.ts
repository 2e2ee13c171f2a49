import { createAuthRoute, jsonContent, type Router } from "../../../http/openapi";
import { changeContents } from "../contents/change";
import { contentsParams, itemPatchSchema } from "../contents/schema";
import { serializeOrderItem } from "../decorations/schema";
import { serializeInvoice } from "../serialize";
import { itemChangedSchema } from "./post";
import { updateItem } from "./queries";

const route = createAuthRoute({
  operationId: "updateOrderItem",
  // Queues the change of the order's invoice for the company's accounting (QuickBooks) when its sync is on.
  reaches: ["accounting"],
  readsFirst: true,
  errors: [404],
  method: "patch",
  path: "/orders/{id}/items/{item_id}",
  tags: ["Order contents"],
  summary: "Update a line item",
  description:
    "Partial update of one live item of the order (only the fields sent change; at least one). `sizes` without `quantity` sets the " +
    "quantity to their sum; `sizes: null` drops the breakdown and keeps the quantity; a `quantity` alone must equal the sum of the " +
    "stored sizes (400 otherwise). `position` moves the item (0-based; past the end: last) and renumbers the others densely. " +
    "Answers the item and the invoice's new totals; queues an accounting `update` resending the lines when sync applies. " +
    "An item of another order, a deleted item, or another company's order is 404.",
  request: {
    params: contentsParams("item_id", "Line item"),
    body: { required: true, content: { "application/json": { schema: itemPatchSchema() } } },
  },
  responses: {
    200: { description: "The item and the invoice after the change", content: jsonContent(itemChangedSchema) },
  },
});

export const registerPatchItem = (api: Router) =>
  api.openapi(route, async (c) => {
    const { id, item_id } = c.req.valid("param");
    const body = c.req.valid("json");
    const result = await changeContents(c, id, { kind: "item", id: item_id }, (change, read) => updateItem(change, read, body));
    return c.json(
      {
        item: serializeOrderItem(result.record, result.decorations, result.artworkIds),
        invoice: serializeInvoice(result.invoice, result.totals),
      },
      200,
    );
  });
