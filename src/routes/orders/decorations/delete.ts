import { createAuthRoute, jsonContent, type Router } from "../../../http/openapi";
import { changeContents } from "../contents/change";
import { contentsDeletedSchema } from "../contents/schema";
import { serializeInvoice } from "../serialize";
import { deleteDecoration } from "./queries";
import { decorationParams } from "./schema";

const route = createAuthRoute({
  operationId: "deleteOrderItemDecoration",
  readsFirst: true,
  errors: [404],
  method: "delete",
  path: "/orders/{id}/items/{item_id}/decorations/{decoration_id}",
  tags: ["Order contents"],
  summary: "Soft-delete a decoration",
  description:
    "Soft-deletes the decoration: it leaves the item, and the item's later decorations move up (positions stay dense). The order's " +
    "`order.updated` event carries the item's decorations as they were in `previous_attributes`. A repeated DELETE, a decoration of " +
    "another item or another company's order is 404.",
  request: { params: decorationParams() },
  responses: {
    200: {
      description: "The decoration was deleted",
      content: jsonContent(() => contentsDeletedSchema("decoration", "DecorationDeleted")),
    },
  },
});

export const registerDeleteDecoration = (api: Router) =>
  api.openapi(route, async (c) => {
    const { id, item_id, decoration_id } = c.req.valid("param");
    const result = await changeContents(c, id, { kind: "item", id: item_id }, (change, read) =>
      deleteDecoration(change, read, decoration_id),
    );
    return c.json({ deleted: true as const, id: decoration_id, invoice: serializeInvoice(result.invoice, result.totals) }, 200);
  });
