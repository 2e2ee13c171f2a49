import { z } from "@hono/zod-openapi";
import { CLIENT_FIELDS, clientSchema } from "../../domain/client";
import { externalIdField, metadataField } from "../../domain/external";
import { columnFields, nullableText, schemaOnce, text } from "../../http/openapi";

/** The client's writable fields; strict, so unknown fields are rejected by name (mass-assignment defence). */
const fields = schemaOnce(() => ({
  company_name: text(255).min(1, "company_name must not be blank").openapi({ example: "Northside Print Co." }),
  first_name: nullableText(255, "Maya"),
  last_name: nullableText(255, "Lopez"),
  email: z.email().max(320).nullable().optional().openapi({ example: "maya@northside.example" }),
  website: nullableText(2048, "https://northside.example"),
  phone: nullableText(64, "+1 (555) 010-2030"),
  quickbooks_enabled: z.boolean().optional().openapi({ description: "Accounting-sync flag for this client" }),
  tax_exempt: z.boolean().optional(),
  tax_exempt_reason: nullableText(1000),
  external_id: externalIdField(),
  metadata: metadataField(),
}));

export const clientCreateSchema = schemaOnce(() => z.strictObject(fields()).openapi("ClientCreate"));
export type ClientCreate = z.infer<ReturnType<typeof clientCreateSchema>>;

/** PUT /clients/by-external-id/{external_id}: the create fields; the external id is the path's. */
export const clientUpsertSchema = schemaOnce(() => {
  const { external_id: _, ...upsertFields } = fields();
  return z.strictObject(upsertFields).openapi("ClientUpsert");
});
export type ClientUpsert = z.infer<ReturnType<typeof clientUpsertSchema>>;

export const clientPatchSchema = schemaOnce(() =>
  z
    .strictObject({
      ...fields(),
      company_name: fields().company_name.optional(),
      deleted: z.literal(true).optional().openapi({ description: 'Send `{ "deleted": true }` alone to soft-delete the client' }),
    })
    .refine((b) => Object.keys(b).length > 0, { message: "Send at least one field to change" })
    .refine((b) => !b.deleted || Object.keys(b).length === 1, {
      message: "`deleted` cannot be combined with other fields",
      path: ["deleted"],
    })
    .openapi("ClientPatch"),
);
export type ClientPatch = z.infer<ReturnType<typeof clientPatchSchema>>;

export const clientEnvelopeSchema = schemaOnce(() => z.object({ client: clientSchema() }).openapi("ClientEnvelope"));

/** Wire fields → columns, for the fields present in the body. */
export const clientColumns = (body: Partial<ClientCreate>) => columnFields(body, [...CLIENT_FIELDS, "externalId"]);

/**
 * `data.previous_attributes` of `client.updated`: each field the change replaced, with the value it had
 * (a field the change left as it was is absent).
 */
export const clientUpdatePreviousSchema = schemaOnce(() =>
  clientSchema()
    .pick({
      company_name: true,
      first_name: true,
      last_name: true,
      email: true,
      website: true,
      phone: true,
      quickbooks_enabled: true,
      tax_exempt: true,
      tax_exempt_reason: true,
      external_id: true,
      metadata: true,
    })
    .partial()
    .openapi("ClientUpdatePrevious"),
);
