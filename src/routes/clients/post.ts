import { clients } from "../../db/schema";
import { serializeClient } from "../../domain/client";
import { createAuthRoute, type Router } from "../../http/openapi";
import { ClientCreateSchema, ClientEnvelopeSchema, clientColumns } from "./schema";

const route = createAuthRoute({
  method: "post",
  path: "/clients",
  operationId: "createClient",
  tags: ["Clients"],
  summary: "Create a client",
  description: "Creates a client in the caller's company. `company_name` is required and must not be blank; unknown fields are rejected.",
  request: { body: { required: true, content: { "application/json": { schema: ClientCreateSchema } } } },
  responses: {
    200: { description: "The created client", content: { "application/json": { schema: ClientEnvelopeSchema } } },
  },
});

export const registerCreateClient = (api: Router) =>
  api.openapi(route, async (c) => {
    const body = c.req.valid("json");
    const [row] = await c.var.db
      .insert(clients)
      .values({ ...clientColumns(body), companyName: body.company_name, companyId: c.var.auth.companyId })
      .returning();
    return c.json({ client: serializeClient(row) }, 200);
  });
