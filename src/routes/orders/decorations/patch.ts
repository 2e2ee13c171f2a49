import { createAuthRoute, jsonContent, type Router } from "../../../http/openapi";
import { changeContents } from "../contents/change";
import { serializeInvoice } from "../serialize";
import { updateDecoration } from "./queries";
import { decorationChangedSchema, decorationParams, decorationPatchSchema, serializeDecoration } from "./schema";

const route = createAuthRoute({
  operationId: "updateOrderItemDecoration",
  readsFirst: true,
  errors: [404, 422],
  method: "patch",
  path: "/orders/{id}/items/{item_id}/decorations/{decoration_id}",
  tags: ["Order contents"],
  summary: "Update a decoration",
  description:
    "Partial update of one live decoration of the item (only the fields sent change; at least one; null clears an optional field). " +
    "The rules between fields hold for the decoration as it is after the change, checked against the stored fields: changing " +
    "`method` away from `screen_print` while a `color_count` is stored is 400 naming `color_count` (send `color_count: null` with it). " +
    "`artwork_id` must be one of this order's live artworks (422 otherwise). `position` moves it among the item's decorations " +
    "(0-based; past the end: last) and renumbers the others densely. Answers the decoration and the invoice; the order's " +
    "`order.updated` event carries the item's decorations as they were in `previous_attributes`. A decoration of another item, a " +
    "deleted one, or another company's order is 404.",
  request: {
    params: decorationParams(),
    body: { required: true, content: { "application/json": { schema: decorationPatchSchema() } } },
  },
  responses: {
    200: { description: "The decoration and the invoice after the change", content: jsonContent(decorationChangedSchema) },
  },
});

export const registerPatchDecoration = (api: Router) =>
  api.openapi(route, async (c) => {
    const { id, item_id, decoration_id } = c.req.valid("param");
    const body = c.req.valid("json");
    const result = await changeContents(c, id, { kind: "item", id: item_id }, (change, read) =>
      updateDecoration(change, read, decoration_id, body),
    );
    return c.json(
      { decoration: serializeDecoration(result.record, result.artworkIds), invoice: serializeInvoice(result.invoice, result.totals) },
      200,
    );
  });
