import { z } from "@hono/zod-openapi";
import type { taxes } from "../../db/schema/orders";
import { ApiError } from "../../http/errors";
import { schemaOnce, text, timestamp, wireFields } from "../../http/openapi";
import { decimalInput, plainDecimal } from "../../platform/money";

/** A company holds at most this many taxes (the list answers them all, unpaged). */
export const MAX_TAXES = 200;

/** The tax's writable fields. */
const fields = schemaOnce(() => ({
  name: text(100).min(1, "name must not be blank").openapi({ example: "City + state sales tax" }),
  rate: decimalInput({ scale: 4, min: 0, max: "100", example: "8.875", description: "Tax rate in percent, 0 to 100" }),
}));

export const taxCreateSchema = schemaOnce(() => z.strictObject(fields()).openapi("TaxRateCreate"));
export type TaxCreate = z.infer<ReturnType<typeof taxCreateSchema>>;

export const taxPatchSchema = schemaOnce(() =>
  z
    .strictObject({ name: fields().name.optional(), rate: fields().rate.optional() })
    .refine((b) => Object.keys(b).length > 0, { message: "Send at least one field to change" })
    .openapi("TaxRatePatch"),
);

export const taxRateSchema = schemaOnce(() =>
  z
    .object({
      id: z.number().int().openapi({ example: 3 }),
      name: z.string().openapi({ example: "City + state sales tax" }),
      rate: z.string().openapi({ description: "Percent, a decimal string without trailing zeros", example: "8.875" }),
      created_at: timestamp(),
      updated_at: timestamp(),
    })
    .openapi("TaxRate"),
);

export const taxEnvelopeSchema = schemaOnce(() => z.object({ tax: taxRateSchema() }).openapi("TaxRateEnvelope"));

export const serializeTaxRate = (row: typeof taxes.$inferSelect): z.infer<ReturnType<typeof taxRateSchema>> => ({
  ...wireFields(row, ["id", "name"]),
  rate: plainDecimal(row.rate),
  ...wireFields(row, ["createdAt", "updatedAt"]),
});

/** 409: the company has as many taxes as it may. */
export const tooManyTaxes = () => new ApiError(409, "conflict", `A company has at most ${MAX_TAXES} taxes`, { max_taxes: MAX_TAXES });
