import { z } from "@hono/zod-openapi";
import { asc } from "drizzle-orm";
import { taxes } from "../../db/schema/orders";
import { createAuthRoute, jsonContent, type Router } from "../../http/openapi";
import { liveTaxes } from "./queries";
import { MAX_TAXES, serializeTaxRate, taxRateSchema } from "./schema";

const route = createAuthRoute({
  method: "get",
  path: "/taxes",
  operationId: "listTaxes",
  tags: ["Taxes"],
  summary: "List taxes",
  description:
    "Every tax rate of your company, oldest first (by id). Not paged: a company has at most " +
    `${MAX_TAXES} taxes. An order's invoice names its tax by id (\`tax_id\`).`,
  responses: {
    200: {
      description: "The company's taxes",
      content: jsonContent(() => z.object({ data: z.array(taxRateSchema()) }).openapi("TaxRateList")),
    },
  },
});

export const registerListTaxes = (api: Router) =>
  api.openapi(route, async (c) => {
    const db = c.get("db");
    const rows = await db
      .select()
      .from(taxes)
      .where(liveTaxes(c.get("auth").companyId))
      .orderBy(asc(taxes.id));
    return c.json({ data: rows.map(serializeTaxRate) }, 200);
  });
