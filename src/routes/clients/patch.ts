import { and, eq, getTableColumns, isNull, sql } from "drizzle-orm";
import { applyChange } from "../../changes/change";
import { eventOf } from "../../changes/effects";
import { clients } from "../../db/schema";
import { serializeClient } from "../../domain/client";
import { notFound } from "../../http/errors";
import { etagMatchesSql, ifMatchHeader, ifMatchTags, preconditionFailed, withEtag } from "../../http/etag";
import { createAuthRoute, idParam, type Router } from "../../http/openapi";
import { clientEvents } from "./events";
import { clientEtag, findLiveClient } from "./queries";
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
    headers: ifMatchHeader,
  },
  errors: [404, 412],
  responses: {
    200: withEtag({
      description: "The updated (or soft-deleted) client",
      content: { "application/json": { schema: ClientEnvelopeSchema } },
    }),
  },
});

export const registerPatchClient = (api: Router) =>
  api.openapi(route, async (c) => {
    const { id } = c.req.valid("param");
    const { deleted, ...fields } = c.req.valid("json");
    const changes = deleted ? { deletedAt: sql`now()` } : clientColumns(fields);
    const tags = ifMatchTags(c);
    return applyChange(c, async (change) => {
      const { db, companyId } = change;
      // One statement: the tenant, liveness and If-Match checks are part of the UPDATE's WHERE (a concurrent
      // writer's commit is re-checked against the row it left, so no change slips between check and write);
      // the change's webhook event is written with it.
      const client = db.$with("client").as(
        db
          .update(clients)
          .set({ ...changes, updatedAt: sql`now()` })
          .where(and(eq(clients.id, id), eq(clients.companyId, companyId), isNull(clients.deletedAt), etagMatchesSql(clientEtag, tags)))
          .returning({ ...getTableColumns(clients), etag: sql<string>`${clientEtag}`.as("etag") }),
      );
      const [row] = await change.write(
        { with: [client], events: [eventOf(clientEvents, deleted ? "client.deleted" : "client.updated", { id, from: client })] },
        (q) => q.select({ client: client._.selectedFields }).from(client),
      );
      if (!row) {
        // Nothing was written: say why (a changed client is 412 with its current ETag).
        const current = tags === undefined ? undefined : await findLiveClient(db, companyId, id);
        throw current ? preconditionFailed(current.etag) : notFound("Client");
      }
      const { etag, ...updated } = row.client;
      const serialized = serializeClient(updated);
      change.objects(() => JSON.stringify(serialized));
      c.header("ETag", etag);
      return c.json({ client: serialized }, 200);
    });
  });
