import { applyIdempotentChange } from "../../changes/change";
import { createAuthRoute, jsonContent, type Router } from "../../http/openapi";
import { clientCreateSchema, clientEnvelopeSchema } from "./schema";
import { answerOf, writeClients } from "./write";

const route = createAuthRoute({
  method: "post",
  path: "/clients",
  operationId: "createClient",
  idempotent: true,
  tags: ["Clients"],
  summary: "Create a client",
  description:
    "Creates a client in the caller's company. `company_name` is required and must not be blank; unknown fields are rejected. " +
    "`external_id` (your system's id) must not be another live client's: that is a 409 `conflict` naming it, and nothing is written. " +
    '`metadata` holds up to 50 key-value pairs; keys sent with "" or null are not stored.',
  errors: [409],
  request: { body: { required: true, content: { "application/json": { schema: clientCreateSchema() } } } },
  responses: {
    200: { description: "The created client", content: jsonContent(clientEnvelopeSchema) },
  },
});

export const registerCreateClient = (api: Router) =>
  api.openapi(route, async (c) => {
    const body = c.req.valid("json");
    // One statement: the client and its `client.created` event (writeClients, shared with the batch).
    return applyIdempotentChange(c, async (change) => {
      const [outcome] = await writeClients(change, [{ method: "create", body }]);
      return { status: 200, body: { client: answerOf(outcome).client } };
    });
  });
