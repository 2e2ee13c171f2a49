import { clients } from "../../db/schema";
import { serializeClient } from "../../domain/client";
import { withIdempotency } from "../../http/idempotency";
import { createAuthRoute, type Router } from "../../http/openapi";
import { ClientCreateSchema, ClientEnvelopeSchema, clientColumns } from "./schema";

const route = createAuthRoute({
  method: "post",
  path: "/clients",
  operationId: "createClient",
  idempotent: true,
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
    return withIdempotency(c, async (db) => {
      const [row] = await db
        .insert(clients)
        .values({ ...clientColumns(body), companyName: body.company_name, companyId: c.var.auth.companyId })
        .returning();
      return { status: 200, body: { client: serializeClient(row) } };
    });
  });
