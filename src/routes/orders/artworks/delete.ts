import { createAuthRoute, jsonContent, type Router } from "../../../http/openapi";
import { changeContents } from "../contents/change";
import { contentsDeletedSchema, contentsParams } from "../contents/schema";
import { serializeInvoice } from "../serialize";
import { deleteArtwork } from "./queries";

const route = createAuthRoute({
  operationId: "deleteOrderArtwork",
  readsFirst: true,
  errors: [404],
  method: "delete",
  path: "/orders/{id}/artworks/{artwork_id}",
  tags: ["Order contents"],
  summary: "Soft-delete an artwork",
  description:
    "Soft-deletes the artwork: it leaves the order. A repeated DELETE, an artwork of another order or another company's order is 404.",
  request: { params: contentsParams("artwork_id", "Artwork") },
  responses: {
    200: {
      description: "The artwork was deleted",
      content: jsonContent(() => contentsDeletedSchema("artwork", "ArtworkDeleted")),
    },
  },
});

export const registerDeleteArtwork = (api: Router) =>
  api.openapi(route, async (c) => {
    const { id, artwork_id } = c.req.valid("param");
    const result = await changeContents(c, id, { kind: "artwork", id: artwork_id }, (change, read) => deleteArtwork(change, read));
    return c.json({ deleted: true as const, id: artwork_id, invoice: serializeInvoice(result.invoice, result.totals) }, 200);
  });
