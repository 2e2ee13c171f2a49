import { and, eq, isNull, sql } from "drizzle-orm";
import { clients } from "../../db/schema";
import { serializeClient } from "../../domain/client";
import { notFound } from "../../http/errors";
import { createAuthRoute, idParam, type Router } from "../../http/openapi";
import { ClientEnvelopeSchema, ClientPatchSchema, clientColumns } from "./schema";

const route = createAuthRoute({
  method: "patch",
  path: "/clients/{id}",
  operationId: "updateClient",
  tags: ["Clients"],
  summary: "Update or soft-delete a client",
  description:
    'Partial update: only the fields sent change (null clears a nullable field). `{ "deleted": true }` alone soft-deletes the client; ' +
    "it then disappears from lists and lookups. An empty body is a 400.",
  request: {
    params: idParam("Client id"),
    body: { required: true, content: { "application/json": { schema: ClientPatchSchema } } },
  },
  errors: [404],
  responses: {
    200: { description: "The updated (or soft-deleted) client", content: { "application/json": { schema: ClientEnvelopeSchema } } },
  },
});

export const registerPatchClient = (api: Router) =>
  api.openapi(route, async (c) => {
    const { id } = c.req.valid("param");
    const { deleted, ...fields } = c.req.valid("json");
    const changes = deleted ? { deletedAt: sql`now()` } : clientColumns(fields);
    // One statement: the tenant and liveness checks are part of the UPDATE's WHERE.
    const [row] = await c.var.db
      .update(clients)
      .set({ ...changes, updatedAt: sql`now()` })
      .where(and(eq(clients.id, id), eq(clients.companyId, c.var.auth.companyId), isNull(clients.deletedAt)))
      .returning();
    if (!row) throw notFound("Client");
    return c.json({ client: serializeClient(row) }, 200);
  });
