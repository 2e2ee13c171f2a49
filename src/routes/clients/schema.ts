import { z } from "@hono/zod-openapi";
import type { clients } from "../../db/schema";
import { iso, nullableText, text, timestamp } from "../../lib/openapi";

/** §2.1 fields; strict, so unknown fields are rejected by name (mass-assignment defence). */
const fields = {
  company_name: text(255).min(1, "company_name must not be blank").openapi({ example: "Northside Print Co." }),
  first_name: nullableText(255, "Maya"),
  last_name: nullableText(255, "Lopez"),
  email: z.email().max(320).nullable().optional().openapi({ example: "maya@northside.example" }),
  website: nullableText(2048, "https://northside.example"),
  phone: nullableText(64, "+1 (555) 010-2030"),
  quickbooks_enabled: z.boolean().optional().openapi({ description: "Accounting-sync flag for this client" }),
  tax_exempt: z.boolean().optional(),
  tax_exempt_reason: nullableText(1000),
};

export const ClientCreateSchema = z.strictObject(fields).openapi("ClientCreate");

export const ClientPatchSchema = z
  .strictObject({
    ...fields,
    company_name: fields.company_name.optional(),
    deleted: z.literal(true).optional().openapi({ description: "Send `{ \"deleted\": true }` alone to soft-delete the client" }),
  })
  .refine((b) => Object.keys(b).length > 0, { message: "Send at least one field to change" })
  .refine((b) => !b.deleted || Object.keys(b).length === 1, {
    message: "`deleted` cannot be combined with other fields",
    path: ["deleted"],
  })
  .openapi("ClientPatch");

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

export const ClientEnvelopeSchema = z.object({ client: ClientSchema }).openapi("ClientEnvelope");

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

/** Wire fields → columns, for the fields present in the body. */
export function clientColumns(body: Partial<z.infer<typeof ClientCreateSchema>>) {
  const map = {
    company_name: "companyName",
    first_name: "firstName",
    last_name: "lastName",
    email: "email",
    website: "website",
    phone: "phone",
    quickbooks_enabled: "quickbooksEnabled",
    tax_exempt: "taxExempt",
    tax_exempt_reason: "taxExemptReason",
  } as const;
  const out: Partial<Record<(typeof map)[keyof typeof map], unknown>> = {};
  for (const [wire, column] of Object.entries(map)) {
    const value = body[wire as keyof typeof map];
    if (value !== undefined) out[column] = value;
  }
  return out as Partial<typeof clients.$inferInsert>;
}
