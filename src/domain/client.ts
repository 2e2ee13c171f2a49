import { z } from "@hono/zod-openapi";
import { and, eq, isNull } from "drizzle-orm";
import { clients } from "../db/schema";
import { iso, timestamp } from "../http/openapi";

/** The client as every resource returns it (clients routes, and the client embedded in an order). */
export const ClientSchema = z
  .object({
    id: z.number().int().openapi({ example: 42 }),
    company_name: z.string(),
    first_name: z.string().nullable(),
    last_name: z.string().nullable(),
    email: z.string().nullable(),
    website: z.string().nullable(),
    phone: z.string().nullable(),
    quickbooks_enabled: z.boolean(),
    tax_exempt: z.boolean(),
    tax_exempt_reason: z.string().nullable(),
    created_at: timestamp(),
    updated_at: timestamp(),
    deleted_at: timestamp().nullable().openapi({ description: "Set only in the response to a soft delete" }),
  })
  .openapi("Client");

type ClientRow = typeof clients.$inferSelect;

export function serializeClient(row: ClientRow): z.infer<typeof ClientSchema> {
  return {
    id: row.id,
    company_name: row.companyName,
    first_name: row.firstName,
    last_name: row.lastName,
    email: row.email,
    website: row.website,
    phone: row.phone,
    quickbooks_enabled: row.quickbooksEnabled,
    tax_exempt: row.taxExempt,
    tax_exempt_reason: row.taxExemptReason,
    created_at: iso(row.createdAt)!,
    updated_at: iso(row.updatedAt)!,
    deleted_at: iso(row.deletedAt),
  };
}

/** A company's live (not soft-deleted) clients: the condition clients and orders both filter on. */
export const liveClients = (companyId: number) => and(eq(clients.companyId, companyId), isNull(clients.deletedAt));
