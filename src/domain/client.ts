import { z } from "@hono/zod-openapi";
import { and, eq, isNull } from "drizzle-orm";
import { clients } from "../db/schema/clients";
import { schemaOnce, timestamp, wireFields } from "../http/openapi";
import { externalIdSchema, metadataSchema } from "./external";

/** The client as every resource returns it (clients routes, and the client embedded in an order). */
export const clientSchema = schemaOnce(() =>
  z
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
      external_id: externalIdSchema(),
      metadata: metadataSchema(),
      created_at: timestamp(),
      updated_at: timestamp(),
      deleted_at: timestamp()
        .nullable()
        .openapi({ description: "Set in the response to a soft delete and on tombstones (lists with `include_deleted=true`)" }),
    })
    .openapi("Client"),
);

type ClientRow = typeof clients.$inferSelect;

/** The columns of a client a caller writes (under their wire names: `wireFields`, `columnFields`). */
export const CLIENT_FIELDS = [
  "companyName",
  "firstName",
  "lastName",
  "email",
  "website",
  "phone",
  "quickbooksEnabled",
  "taxExempt",
  "taxExemptReason",
] as const;

export const serializeClient = (row: ClientRow): z.infer<ReturnType<typeof clientSchema>> =>
  wireFields(row, ["id", ...CLIENT_FIELDS, "externalId", "metadata", "createdAt", "updatedAt", "deletedAt"]);

/** A company's live (not soft-deleted) clients: the condition clients and orders both filter on. */
export const liveClients = (companyId: number) => and(eq(clients.companyId, companyId), isNull(clients.deletedAt));
