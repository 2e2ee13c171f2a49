import { sql } from "drizzle-orm";
import { applyIdempotentChange } from "../../changes/change";
import { taxes } from "../../db/schema/orders";
import { createAuthRoute, jsonContent, type Router } from "../../http/openapi";
import { insertFrom } from "../../platform/sql-kit";
import { liveTaxes } from "./queries";
import { MAX_TAXES, serializeTaxRate, taxCreateSchema, taxEnvelopeSchema, tooManyTaxes } from "./schema";

const route = createAuthRoute({
  method: "post",
  path: "/taxes",
  operationId: "createTax",
  idempotent: true,
  tags: ["Taxes"],
  summary: "Create a tax",
  description:
    "Adds a tax rate: `name` (1–100 characters) and `rate`, a percent from 0 to 100 with at most 4 decimals, as a JSON number " +
    `or a decimal string (\`8.875\`, \`"8.875"\`). A company has at most ${MAX_TAXES} taxes (409 \`conflict\` beyond).`,
  request: { body: { required: true, content: { "application/json": { schema: taxCreateSchema() } } } },
  errors: [409],
  responses: {
    200: { description: "The created tax", content: jsonContent(taxEnvelopeSchema) },
  },
});

export const registerCreateTax = (api: Router) =>
  api.openapi(route, async (c) => {
    const body = c.req.valid("json");
    return applyIdempotentChange(c, async (change) => {
      const { db, companyId } = change;
      // One statement: the tax, unless the company has as many as it may.
      const tax = insertFrom(
        db,
        "tax",
        taxes,
        { companyId, name: body.name, rate: body.rate },
        sql`where (select count(*) from ${taxes} where ${liveTaxes(companyId)}) < ${MAX_TAXES}`,
      );
      const [row] = await change.write({ with: [tax] }, (q) => q.select({ tax: tax._.selectedFields }).from(tax));
      if (!row) throw tooManyTaxes();
      return { status: 200 as const, body: { tax: serializeTaxRate(row.tax) } };
    });
  });
