import { createAuthRoute, idParam, jsonContent, type Router, schemaOnce } from "../../../http/openapi";
import { createContents } from "../contents/change";
import { ARTWORK_STATUSES, artworkCreateSchema, artworkSchema, changedSchema, MAX_CONTENTS } from "../contents/schema";
import { serializeArtwork, serializeInvoice } from "../serialize";
import { insertArtwork } from "./queries";

export const artworkChangedSchema = schemaOnce(() => changedSchema("artwork", artworkSchema(), "ArtworkChanged"));

const route = createAuthRoute({
  operationId: "createOrderArtwork",
  readsFirst: true,
  errors: [404],
  method: "post",
  idempotent: true,
  path: "/orders/{id}/artworks",
  tags: ["Order contents"],
  summary: "Add an artwork to an order",
  description:
    "Adds an artwork (print method, placements, colors, preview URL, status) to the order. `status` is one of " +
    `${ARTWORK_STATUSES.map((s) => `\`${s}\``).join(", ")} (default \`draft\`); \`approved_at\` is set when it is \`approved\`. ` +
    "`preview_url` must be an http or " +
    "https URL. Answers the artwork and the invoice (totals unchanged; `updated_at` moves on, as the order's does). " +
    `An order holds at most ${MAX_CONTENTS} live artworks (400 beyond). Another company's order is 404.`,
  request: {
    params: idParam("Order (project) id"),
    body: { required: true, content: { "application/json": { schema: artworkCreateSchema() } } },
  },
  responses: {
    200: {
      description: "The new artwork and the invoice after the change",
      content: jsonContent(artworkChangedSchema),
    },
  },
});

export const registerCreateArtwork = (api: Router) =>
  api.openapi(route, async (c) => {
    const { id } = c.req.valid("param");
    const body = c.req.valid("json");
    return createContents(
      c,
      id,
      (change, read) => insertArtwork(change, read, body),
      (result) => ({ artwork: serializeArtwork(result.record), invoice: serializeInvoice(result.invoice, result.totals) }),
    );
  });
