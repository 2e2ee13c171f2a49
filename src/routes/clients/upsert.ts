import { applyChange } from "../../changes/change";
import { externalIdParam } from "../../domain/external";
import { withEtag } from "../../http/etag";
import { createAuthRoute, jsonContent, type Router } from "../../http/openapi";
import { clientEnvelopeSchema, clientUpsertSchema } from "./schema";
import { answerOf, writeClients } from "./write";

const route = createAuthRoute({
  method: "put",
  path: "/clients/by-external-id/{external_id}",
  operationId: "upsertClient",
  tags: ["Clients"],
  summary: "Create or update a client by its external id",
  description:
    "Finds your live client with this `external_id`: when there is none it is created from the body (201, `company_name` required, " +
    "as POST /clients), otherwise the fields sent are updated (200, as PATCH /clients/{id}: `metadata` is merged). " +
    "The body has the create fields without `external_id` (the path's). Identical requests sent at once make one client: " +
    "the first creates it, the others update it. Events: `client.created` or `client.updated`, as the request amounts to.",
  request: {
    params: externalIdParam("client"),
    body: { required: true, content: { "application/json": { schema: clientUpsertSchema() } } },
  },
  responses: {
    200: withEtag({ description: "The client existed and was updated", content: jsonContent(clientEnvelopeSchema) }),
    201: withEtag({ description: "The client was created", content: jsonContent(clientEnvelopeSchema) }),
  },
});

export const registerUpsertClient = (api: Router) =>
  api.openapi(route, async (c) => {
    const { external_id: externalId } = c.req.valid("param");
    const body = c.req.valid("json");
    // One statement: found and updated, or inserted (writeClients, shared with the batch).
    return applyChange(c, async (change) => {
      const [outcome] = await writeClients(change, [{ method: "upsert", externalId, body }]);
      const { client, etag, status } = answerOf(outcome);
      c.header("ETag", etag);
      return status === 201 ? c.json({ client }, 201) : c.json({ client }, 200);
    });
  });
