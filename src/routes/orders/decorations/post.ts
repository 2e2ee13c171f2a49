import { createAuthRoute, jsonContent, type Router } from "../../../http/openapi";
import { createContents } from "../contents/change";
import { contentsParams } from "../contents/schema";
import { serializeInvoice } from "../serialize";
import { insertDecoration } from "./queries";
import { decorationChangedSchema, decorationCreateSchema, MAX_DECORATIONS, serializeDecoration } from "./schema";

const route = createAuthRoute({
  operationId: "createOrderItemDecoration",
  readsFirst: true,
  errors: [404],
  method: "post",
  idempotent: true,
  path: "/orders/{id}/items/{item_id}/decorations",
  tags: ["Order contents"],
  summary: "Add a decoration to a line item",
  description:
    "Adds a decoration (location, method, colours, colour or stitch count, size, artwork, notes) to a live line item of the order. " +
    "`location_detail` is required when `location` is `other`; `color_count` only with `screen_print` (at least the number of " +
    "`colors`); `stitch_count` only with `embroidery`; `unit` with `width` or `height` and only with them (400 naming the field). " +
    "`artwork_id` must be one of this order's live artworks: 422 naming `artwork_id` otherwise (another order's or company's artwork " +
    "answers the same as a missing one). `position` (0-based) places it among the item's live decorations, moving the later ones " +
    `down; omitted or past the end, it goes last. An item holds at most ${MAX_DECORATIONS} live decorations (400 beyond). Answers the ` +
    "decoration and the invoice (totals unchanged; `updated_at` moves on, as the order's does); the order's `order.updated` event " +
    "carries the item's decorations as they were in `previous_attributes`. An item of another order, a deleted item or another " +
    "company's order is 404.",
  request: {
    params: contentsParams("item_id", "Line item"),
    body: { required: true, content: { "application/json": { schema: decorationCreateSchema() } } },
  },
  responses: {
    200: { description: "The new decoration and the invoice after the change", content: jsonContent(decorationChangedSchema) },
  },
});

export const registerCreateDecoration = (api: Router) =>
  api.openapi(route, async (c) => {
    const { id, item_id } = c.req.valid("param");
    const body = c.req.valid("json");
    return createContents(
      c,
      id,
      (change, read) => insertDecoration(change, read, body),
      (result) => ({
        decoration: serializeDecoration(result.record, result.artworkIds),
        invoice: serializeInvoice(result.invoice, result.totals),
      }),
      { kind: "item", id: item_id },
    );
  });
