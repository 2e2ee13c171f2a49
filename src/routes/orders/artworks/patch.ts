import { createAuthRoute, jsonContent, type Router } from "../../../http/openapi";
import { changeContents } from "../contents/change";
import { artworkPatchSchema, contentsParams } from "../contents/schema";
import { serializeArtwork, serializeInvoice } from "../serialize";
import { artworkChangedSchema } from "./post";
import { updateArtwork } from "./queries";

const route = createAuthRoute({
  operationId: "updateOrderArtwork",
  readsFirst: true,
  errors: [404],
  method: "patch",
  path: "/orders/{id}/artworks/{artwork_id}",
  tags: ["Order contents"],
  summary: "Update an artwork",
  description:
    "Partial update of one live artwork of the order (only the fields sent change; at least one). A `status` change to `approved` " +
    "sets `approved_at` (an artwork already approved keeps its time); any other status clears it. " +
    "An artwork of another order, a deleted artwork, or another company's order is 404.",
  request: {
    params: contentsParams("artwork_id", "Artwork"),
    body: { required: true, content: { "application/json": { schema: artworkPatchSchema() } } },
  },
  responses: {
    200: { description: "The artwork and the invoice after the change", content: jsonContent(artworkChangedSchema) },
  },
});

export const registerPatchArtwork = (api: Router) =>
  api.openapi(route, async (c) => {
    const { id, artwork_id } = c.req.valid("param");
    const body = c.req.valid("json");
    const result = await changeContents(c, id, { kind: "artwork", id: artwork_id }, (change, read) => updateArtwork(change, read, body));
    return c.json({ artwork: serializeArtwork(result.record), invoice: serializeInvoice(result.invoice, result.totals) }, 200);
  });
