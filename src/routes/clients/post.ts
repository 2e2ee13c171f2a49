import { sql } from "drizzle-orm";
import { clients } from "../../db/schema";
import { serializeClient } from "../../domain/client";
import { withIdempotency } from "../../http/idempotency";
import { createAuthRoute, type Router } from "../../http/openapi";
import { insertFrom } from "../../platform/sql-kit";
import { publishWebhookEvent, webhookEventCte } from "../../webhooks/events";
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
    const { companyId } = c.var.auth;
    // One statement: the client and its `client.created` event (with its deliveries).
    return withIdempotency(c, async (db) => {
      const client = insertFrom(db, "client", clients, { ...clientColumns(body), companyName: body.company_name, companyId }, sql``);
      const event = webhookEventCte(
        db,
        { companyId, type: "client.created", resourceType: "client", resourceId: sql`${client.id}` },
        sql`from ${client}`,
      );
      const [row] = await db
        .with(client, ...event.ctes)
        .select({ client: client._.selectedFields, webhook: event.written })
        .from(client);
      const created = serializeClient(row.client);
      return {
        status: 200,
        body: { client: created },
        afterCommit: () => publishWebhookEvent(c, row.webhook, () => JSON.stringify(created)),
      };
    });
  });
