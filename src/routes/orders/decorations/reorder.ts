import { createAuthRoute, jsonContent, type Router } from "../../../http/openapi";
import { createContents } from "../contents/change";
import { contentsParams } from "../contents/schema";
import { serializeInvoice } from "../serialize";
import { reorderDecorations } from "./queries";
import { decorationReorderSchema, decorationsReorderedSchema, serializeDecoration } from "./schema";

const route = createAuthRoute({
  operationId: "updateOrderItemDecorationOrder",
  readsFirst: true,
  errors: [404],
  method: "post",
  idempotent: true,
  path: "/orders/{id}/items/{item_id}/decorations/reorder",
  tags: ["Order contents"],
  summary: "Reorder a line item's decorations",
  description:
    "Puts the item's live decorations in the order of `ids`, which must name each of them exactly once (400 naming `ids` otherwise); " +
    "their positions become 0 … n−1 in that order. Answers them in their new order and the invoice; the order's `order.updated` " +
    "event carries the item's decorations as they were in `previous_attributes`. An item of another order, a deleted item or " +
    "another company's order is 404.",
  request: {
    params: contentsParams("item_id", "Line item"),
    body: { required: true, content: { "application/json": { schema: decorationReorderSchema() } } },
  },
  responses: {
    200: { description: "The item's decorations in their new order and the invoice", content: jsonContent(decorationsReorderedSchema) },
  },
});

export const registerReorderDecorations = (api: Router) =>
  api.openapi(route, async (c) => {
    const { id, item_id } = c.req.valid("param");
    const { ids } = c.req.valid("json");
    return createContents(
      c,
      id,
      (change, read) => reorderDecorations(change, read, ids),
      (result) => ({
        decorations: result.decorations.map((d) => serializeDecoration(d, result.artworkIds)),
        invoice: serializeInvoice(result.invoice, result.totals),
      }),
      { kind: "item", id: item_id },
    );
  });
