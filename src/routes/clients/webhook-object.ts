import { and, eq } from "drizzle-orm";
import { clients } from "../../db/schema/clients";
import { serializeClient } from "../../domain/client";
import type { WebhookRenderer } from "../../webhooks/events-catalog";

/** A client event's object as the API returns it now (a soft-deleted client with its `deleted_at`). */
export const renderClientObject: WebhookRenderer = async (db, { companyId, resourceId }) => {
  const [row] = await db
    .select()
    .from(clients)
    .where(and(eq(clients.companyId, companyId), eq(clients.id, Number(resourceId))))
    .limit(1);
  return row ? JSON.stringify(serializeClient(row)) : undefined;
};
