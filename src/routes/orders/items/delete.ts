import { createAuthRoute, jsonContent, type Router } from "../../../http/openapi";
import { changeContents } from "../contents/change";
import { contentsDeletedSchema, contentsParams } from "../contents/schema";
import { serializeInvoice } from "../serialize";
import { deleteItem } from "./queries";

const route = createAuthRoute({
  operationId: "deleteOrderItem",
  // Queues the change of the order's invoice for the company's accounting (QuickBooks) when its sync is on.
  reaches: ["accounting"],
  readsFirst: true,
  errors: [404],
  method: "delete",
  path: "/orders/{id}/items/{item_id}",
  tags: ["Order contents"],
  summary: "Soft-delete a line item",
  description:
    "Soft-deletes the item: it leaves the order, its totals and product search; the items after it move up (positions stay dense). " +
    "Answers the invoice's new totals; queues an accounting `update` resending the lines when sync applies. A repeated DELETE, an " +
    "item of another order or another company's order is 404.",
  request: { params: contentsParams("item_id", "Line item") },
  responses: {
    200: {
      description: "The item was deleted",
      content: jsonContent(() => contentsDeletedSchema("item", "InvoiceItemDeleted")),
    },
  },
});

export const registerDeleteItem = (api: Router) =>
  api.openapi(route, async (c) => {
    const { id, item_id } = c.req.valid("param");
    const result = await changeContents(c, id, { kind: "item", id: item_id }, (change, read) => deleteItem(change, read));
    return c.json({ deleted: true as const, id: item_id, invoice: serializeInvoice(result.invoice, result.totals) }, 200);
  });
