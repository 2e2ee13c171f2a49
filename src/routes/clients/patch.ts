import { applyChange } from "../../changes/change";
import { ifMatchHeader, ifMatchTags, withEtag } from "../../http/etag";
import { createAuthRoute, idParam, jsonContent, type Router } from "../../http/openapi";
import { clientEnvelopeSchema, clientPatchSchema } from "./schema";
import { answerOf, writeClients } from "./write";

const route = createAuthRoute({
  method: "patch",
  path: "/clients/{id}",
  operationId: "updateClient",
  tags: ["Clients"],
  summary: "Update or soft-delete a client",
  description:
    'Partial update: only the fields sent change (null clears a nullable field). `{ "deleted": true }` alone soft-deletes the client; ' +
    "it then disappears from lists and lookups, and its `external_id` is free for another client. An empty body is a 400. " +
    "`external_id` must not be another live client's (409 `conflict`); null clears it. `metadata` is merged into the stored pairs: " +
    'a key set to "" or null is removed, `metadata: null` removes all; more than 50 keys after the merge is a 400.',
  request: {
    params: idParam("Client id"),
    body: { required: true, content: { "application/json": { schema: clientPatchSchema() } } },
    headers: ifMatchHeader(),
  },
  errors: [404, 409, 412],
  responses: {
    200: withEtag({
      description: "The updated (or soft-deleted) client",
      content: jsonContent(clientEnvelopeSchema),
    }),
  },
});

export const registerPatchClient = (api: Router) =>
  api.openapi(route, async (c) => {
    const { id } = c.req.valid("param");
    const { deleted, ...body } = c.req.valid("json");
    const ifMatch = ifMatchTags(c);
    // One statement (writeClients, shared with the batch): the tenant, liveness, external-id and If-Match
    // checks are part of it (a concurrent writer's commit is re-checked against the row it left, so no
    // change slips between check and write); the change's webhook event is written with it.
    return applyChange(c, async (change) => {
      const [outcome] = await writeClients(change, [{ method: "update", address: { id }, body, deleted, ifMatch }]);
      const { client, etag } = answerOf(outcome);
      c.header("ETag", etag);
      return c.json({ client }, 200);
    });
  });
