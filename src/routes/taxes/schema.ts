import { z } from "@hono/zod-openapi";
import type { taxes } from "../../db/schema/orders";
import { ApiError } from "../../http/errors";
import { text, timestamp, wireFields } from "../../http/openapi";
import { decimalInput, plainDecimal } from "../../platform/money";

/** A company holds at most this many taxes (the list answers them all, unpaged). */
export const MAX_TAXES = 200;

const name = text(100).min(1, "name must not be blank").openapi({ example: "City + state sales tax" });
const rate = decimalInput({ scale: 4, min: 0, max: "100", example: "8.875", description: "Tax rate in percent, 0 to 100" });

export const TaxCreateSchema = z.strictObject({ name, rate }).openapi("TaxRateCreate");
export type TaxCreate = z.infer<typeof TaxCreateSchema>;

export const TaxPatchSchema = z
  .strictObject({ name: name.optional(), rate: rate.optional() })
  .refine((b) => Object.keys(b).length > 0, { message: "Send at least one field to change" })
  .openapi("TaxRatePatch");

export const TaxRateSchema = z
  .object({
    id: z.number().int().openapi({ example: 3 }),
    name: z.string().openapi({ example: "City + state sales tax" }),
    rate: z.string().openapi({ description: "Percent, a decimal string without trailing zeros", example: "8.875" }),
    created_at: timestamp(),
    updated_at: timestamp(),
  })
  .openapi("TaxRate");

export const TaxEnvelopeSchema = z.object({ tax: TaxRateSchema }).openapi("TaxRateEnvelope");

export const serializeTaxRate = (row: typeof taxes.$inferSelect): z.infer<typeof TaxRateSchema> => ({
  ...wireFields(row, ["id", "name"]),
  rate: plainDecimal(row.rate),
  ...wireFields(row, ["createdAt", "updatedAt"]),
});

/** 409: the company has as many taxes as it may. */
export const tooManyTaxes = () => new ApiError(409, "conflict", `A company has at most ${MAX_TAXES} taxes`, { max_taxes: MAX_TAXES });
