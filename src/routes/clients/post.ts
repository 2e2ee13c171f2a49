import { sql } from "drizzle-orm";
import { applyIdempotentChange } from "../../changes/change";
import { eventOf } from "../../changes/effects";
import { clients } from "../../db/schema";
import { serializeClient } from "../../domain/client";
import { createAuthRoute, type Router } from "../../http/openapi";
import { insertFrom } from "../../platform/sql-kit";
import { clientEvents } from "./events";
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
    // One statement: the client and its `client.created` event.
    return applyIdempotentChange(c, async (change) => {
      const client = insertFrom(
        change.db,
        "client",
        clients,
        { ...clientColumns(body), companyName: body.company_name, companyId: change.companyId },
        sql``,
      );
      const [row] = await change.write(
        { with: [client], events: [eventOf(clientEvents, "client.created", { id: client.id, from: client })] },
        (q) => q.select({ client: client._.selectedFields }).from(client),
      );
      const created = serializeClient(row.client);
      change.objects(() => JSON.stringify(created));
      return { status: 200, body: { client: created } };
    });
  });
