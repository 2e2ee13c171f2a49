import { and, eq } from "drizzle-orm";
import { emailThreads } from "../../db/schema/mail";
import { stringifyWithRaw } from "../../http/exact-json";
import type { WebhookRenderer } from "../../webhooks/events-catalog";
import { emailThreadFields } from "./queries";
import { serializeEmailThread } from "./schema";

/** An email thread event's object as PUT and GET answer it now (stored JSON members exact, as stored). */
export const renderEmailThreadObject: WebhookRenderer = async (db, { companyId, resourceId }) => {
  const [row] = await db
    .select(emailThreadFields)
    .from(emailThreads)
    .where(and(eq(emailThreads.companyId, companyId), eq(emailThreads.id, resourceId)))
    .limit(1);
  return row ? stringifyWithRaw(serializeEmailThread(row)) : undefined;
};
